package apierr

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"
)

// Error codes of docs/protocol.md §4.
const (
	CodeBadRequest            = "BAD_REQUEST"
	CodeUnauthorized          = "UNAUTHORIZED"
	CodeAgentNotFound         = "AGENT_NOT_FOUND"
	CodeCommandNotFound       = "COMMAND_NOT_FOUND"
	CodePayloadTooLarge       = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMediaType  = "UNSUPPORTED_MEDIA_TYPE"
	CodeInvalidContext        = "INVALID_CONTEXT_VARIABLE"
	CodeStateInvalid          = "STATE_INVALID"
	CodeRateLimited           = "RATE_LIMITED"
	CodeInternal              = "INTERNAL"
	CodeNotFound              = "NOT_FOUND"
	CodeMethodNotAllowed      = "METHOD_NOT_ALLOWED"
	CodeUpstreamUnavailable   = "UPSTREAM_UNAVAILABLE"
	CodeUpstreamError         = "UPSTREAM_ERROR"
	CodeUpstreamTimeout       = "UPSTREAM_TIMEOUT"
	CodeUpstreamNotConfigured = "UPSTREAM_NOT_CONFIGURED"
	CodeTemplateError         = "TEMPLATE_ERROR"
	CodeActionInvalid         = "ACTION_INVALID"
	CodeCommandEmpty          = "COMMAND_EMPTY"
	CodeToolFailed            = "TOOL_FAILED"
	CodeToolRoundsExceeded    = "TOOL_ROUNDS_EXCEEDED"
	CodeDeclined              = "DECLINED"
	// CodeCanceled ends a run quietly: the client went away, nothing is
	// sent.
	CodeCanceled = "CANCELED"
	// CodeRepositoriesNotConfigured: a git step ran on a gateway without
	// git.repositories.
	CodeRepositoriesNotConfigured = "REPOSITORIES_NOT_CONFIGURED"
	// CodeRepositoryNotAllowed: the request's remote is on no repository's
	// allow list.
	CodeRepositoryNotAllowed = "REPOSITORY_NOT_ALLOWED"
	// CodeStoreUnavailable: the gateway's store (its database) failed a
	// read or a write; what it held is still there when it comes back.
	CodeStoreUnavailable = "STORE_UNAVAILABLE"
	// CodeContextNotFound: a conversation context that does not exist,
	// belongs to another caller, or was deleted.
	CodeContextNotFound = "CONTEXT_NOT_FOUND"
	// CodeContextConflict: a write named another version of the context
	// than the stored one (or created an id that is taken); nothing was
	// written.
	CodeContextConflict = "CONTEXT_CONFLICT"
	// CodeInvalidHandoff: a hand-off message (seed 001) that breaks its
	// schemas; Violations lists each by JSON pointer.
	CodeInvalidHandoff = "INVALID_HANDOFF"
	// CodeHandoffPriority: a hand-off message sent over the API whose
	// metadata.priority is above handoffs.maxExternalPriority.
	CodeHandoffPriority = "HANDOFF_PRIORITY_NOT_ALLOWED"
	// CodeConflict: a write that clashes with what is stored (a name
	// taken, a schedule defined in a file, a run already in progress).
	CodeConflict = "CONFLICT"
	// CodeDefinitionNotAllowed: a request-carried agent definition holds a
	// field such a definition may not (a network target, a tool, a step);
	// the message names the field's path. Nothing was sent or run.
	CodeDefinitionNotAllowed = "DEFINITION_NOT_ALLOWED"
	// CodeForbidden: the route is not served to this caller (a gateway
	// without inbound auth serves its object APIs only on loopback).
	CodeForbidden = "FORBIDDEN"
	// CodeInvalidParameters: a tool's parameters, given by a caller (a
	// schedule's params), do not match the tool's declared schema.
	CodeInvalidParameters = "INVALID_PARAMETERS"
	// CodeToolNotUnattended: a schedule made over the API names a tool
	// that may not run with no one present (not marked unattended, needs
	// consent, a frontend tool, or not exported); nothing ran.
	CodeToolNotUnattended = "TOOL_NOT_UNATTENDED"
	// CodeScheduleQuota: the caller has as many schedules as
	// scheduler.maxPerOwner allows.
	CodeScheduleQuota = "SCHEDULE_QUOTA_EXCEEDED"
	// CodeScheduleTooFrequent: a schedule made over the API would run more
	// often than scheduler.minInterval allows.
	CodeScheduleTooFrequent = "SCHEDULE_TOO_FREQUENT"
	// CodeBudgetExceeded: the request would take its key's, user's or
	// team's token or dollar budget over its limit for the day or the
	// month; nothing was sent to the model. ResetsAt says when the
	// budget's window ends.
	CodeBudgetExceeded = "BUDGET_EXCEEDED"
)

// Codes of plan failures inside the stream.
const (
	CodeStepFailed  = "STEP_FAILED"
	CodeStepTimeout = "STEP_TIMEOUT"
	// CodeStepNotReady: a step's && gate waited for references no step
	// wrote, so it never ran.
	CodeStepNotReady = "STEP_NOT_READY"
	CodePlanTimeout  = "PLAN_TIMEOUT"
)

// Error sources of the seed-000 error shape.
const (
	SourceClient   = "client"
	SourceServer   = "server"
	SourceUpstream = "upstream"
)

// Error is the one error type that reaches a client: before the stream it is
// rendered as an ERROR_RESPONSE with Status, inside it as a copilot_error frame.
// Message is safe to show; Err, the cause, is only logged.
type Error struct {
	Code            string
	Status          int
	Message         string
	Source          string
	Recoverable     bool
	SuggestedAction string
	// UpstreamStatus is the upstream's HTTP status for UPSTREAM_ERROR.
	UpstreamStatus int
	// Violations, for an error about a document the client sent, list
	// every problem in it by JSON pointer.
	Violations []Violation
	// ResetsAt, when set, is when what refused the request (a budget's
	// window, a rate limit's minute) lets it through again: the answer
	// carries it (details.resetsAt) and a Retry-After header.
	ResetsAt time.Time
	Err      error
}

// Violation is one problem of a document, at its RFC 6901 JSON pointer.
type Violation struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Suggest sets the suggested action and returns e.
func (e *Error) Suggest(action string) *Error {
	e.SuggestedAction = action
	return e
}

// Origin is the error's Source, or, when it has none, the side its code
// and status imply: upstream for the UPSTREAM_ codes of a failing model
// platform, client for a 4xx status, else server. Both error shapes (the
// ERROR_RESPONSE and the copilot_error frame) carry it.
func (e *Error) Origin() string {
	switch {
	case e.Source != "":
		return e.Source
	case e.Code == CodeUpstreamError || e.Code == CodeUpstreamTimeout || e.Code == CodeUpstreamUnavailable:
		return SourceUpstream
	case e.Status >= 400 && e.Status < 500:
		return SourceClient
	}
	return SourceServer
}

// Suggestion is the error's SuggestedAction, or, when it has none, the
// default of its code, so that every error a client sees says what to do.
func (e *Error) Suggestion() string {
	if e.SuggestedAction != "" {
		return e.SuggestedAction
	}
	if s, ok := suggestions[e.Code]; ok {
		return s
	}
	if e.Origin() == SourceClient {
		return "see the errors section of the gateway's protocol (docs/protocol.md §4)"
	}
	return askOperator
}

// askOperator is the suggestion of a failure only the gateway's log explains.
const askOperator = "try again; if it keeps failing, give the gateway's operator this request id"

// suggestions are the default suggested actions of the codes an error may
// carry without one of its own.
var suggestions = map[string]string{
	CodeInternal:              askOperator,
	CodeUpstreamError:         "try again; if it keeps failing, the gateway's operator finds the model platform's answer in the log under this request id",
	CodeUpstreamTimeout:       "try again; if it keeps happening the gateway's timeouts may be too short for this model",
	CodeUpstreamUnavailable:   "try again later; the gateway's operator should check the upstream URL and that the model platform is up",
	CodeUpstreamNotConfigured: "the gateway's operator should configure an upstream model platform (--upstream URL or upstream.url)",
	CodeTemplateError:         "the agent's author should check the template with `agentgw lint`",
	CodeActionInvalid:         "the agent's author should check the command's actions with `agentgw lint`",
	CodeCommandEmpty:          "the gateway's operator should give the command a reply or messageTemplates",
	CodeStepFailed:            "try again; if it keeps failing, the agent's author finds why in the gateway's log under this request id",
	CodeStepTimeout:           "try again; the agent's author may raise the step's timeout",
	CodeStepNotReady:          "the agent's author should make a step write what the step waits for, or give the step onError: continue",
	CodePlanTimeout:           "try again; the agent's author may raise the command's timeout",
	CodeToolFailed:            "try again; if it keeps failing, the gateway's operator finds the tool's error in the log under this request id",
	CodeToolRoundsExceeded:    "ask a narrower question: the model called tools more often than one answer allows",
	CodeDeclined:              "run the command again and accept to let the tool run",
	CodeStateInvalid:          "echo the state of the action verbatim; run the command again for a fresh action",
	CodeRateLimited:           "wait a moment and try again",
	CodeContextNotFound:       "POST /contexts creates a context; an id that was deleted or belongs to another caller cannot be used",
	CodeContextConflict:       "GET the context (or its changes since your version) and retry the write on the current version",
	CodeDefinitionNotAllowed:  "leave the named field out: a request-carried definition may hold templates, a context strategy and a model name, nothing that reaches the network or runs a process",
	CodeStoreUnavailable:      "try again in a moment: the gateway's database did not answer, and the gateway recovers on its own once it is back",
	CodeInvalidParameters:     "send only the parameters the tool declares, with the types its schema gives (GET /agents shows the tools)",
	CodeToolNotUnattended:     "schedule a command of the agent instead, or ask the gateway's operator to mark the tool unattended: true (and export: true)",
	CodeScheduleQuota:         "delete a schedule you no longer need (DELETE /schedules/{id}), or ask the gateway's operator to raise scheduler.maxPerOwner",
	CodeScheduleTooFrequent:   "run it less often: every at least scheduler.minInterval, or a cron whose runs are at least that far apart",
	CodeBudgetExceeded:        "wait until the budget resets (details.resetsAt, Retry-After), or ask the gateway's operator to raise it (usage.budgets)",
}

// codeInfo is what a code implies: the HTTP status an error with it gets
// before the stream, and whether trying again may help.
type codeInfo struct {
	status      int
	recoverable bool
}

// codes is the table of the codes the gateway sends; a code not in it is
// a 500.
var codes = map[string]codeInfo{
	CodeBadRequest:                {status: http.StatusBadRequest},
	CodeStateInvalid:              {status: http.StatusBadRequest},
	CodeUnauthorized:              {status: http.StatusUnauthorized},
	CodeDeclined:                  {status: http.StatusForbidden},
	CodeRepositoryNotAllowed:      {status: http.StatusForbidden},
	CodeForbidden:                 {status: http.StatusForbidden},
	CodeAgentNotFound:             {status: http.StatusNotFound},
	CodeCommandNotFound:           {status: http.StatusNotFound},
	CodeNotFound:                  {status: http.StatusNotFound},
	CodeContextNotFound:           {status: http.StatusNotFound},
	CodeContextConflict:           {status: http.StatusConflict, recoverable: true},
	CodeConflict:                  {status: http.StatusConflict},
	CodeMethodNotAllowed:          {status: http.StatusMethodNotAllowed},
	CodePayloadTooLarge:           {status: http.StatusRequestEntityTooLarge},
	CodeUnsupportedMediaType:      {status: http.StatusUnsupportedMediaType},
	CodeInvalidContext:            {status: http.StatusUnprocessableEntity},
	CodeInvalidHandoff:            {status: http.StatusUnprocessableEntity},
	CodeHandoffPriority:           {status: http.StatusUnprocessableEntity},
	CodeDefinitionNotAllowed:      {status: http.StatusUnprocessableEntity},
	CodeInvalidParameters:         {status: http.StatusUnprocessableEntity},
	CodeToolNotUnattended:         {status: http.StatusUnprocessableEntity},
	CodeScheduleTooFrequent:       {status: http.StatusUnprocessableEntity},
	CodeScheduleQuota:             {status: http.StatusConflict},
	CodeRateLimited:               {status: http.StatusTooManyRequests, recoverable: true},
	CodeBudgetExceeded:            {status: http.StatusTooManyRequests},
	CodeInternal:                  {status: http.StatusInternalServerError},
	CodeTemplateError:             {status: http.StatusInternalServerError},
	CodeActionInvalid:             {status: http.StatusInternalServerError},
	CodeCommandEmpty:              {status: http.StatusInternalServerError},
	CodeToolFailed:                {status: http.StatusInternalServerError},
	CodeToolRoundsExceeded:        {status: http.StatusInternalServerError},
	CodeStepFailed:                {status: http.StatusInternalServerError},
	CodeStepNotReady:              {status: http.StatusInternalServerError},
	CodeUpstreamError:             {status: http.StatusBadGateway},
	CodeUpstreamUnavailable:       {status: http.StatusBadGateway},
	CodeUpstreamTimeout:           {status: http.StatusBadGateway},
	CodeUpstreamNotConfigured:     {status: http.StatusServiceUnavailable},
	CodeRepositoriesNotConfigured: {status: http.StatusServiceUnavailable},
	CodeStoreUnavailable:          {status: http.StatusServiceUnavailable, recoverable: true},
	CodeStepTimeout:               {status: http.StatusGatewayTimeout, recoverable: true},
	CodePlanTimeout:               {status: http.StatusGatewayTimeout, recoverable: true},
	// CodeCanceled has no status: its run ends without a word to a client
	// that is gone.
	CodeCanceled: {},
}

// StatusOf is the HTTP status of code, from the table of codes.
func StatusOf(code string) int {
	if c, ok := codes[code]; ok {
		return c.status
	}
	return http.StatusInternalServerError
}

// New builds the error of code with message, shown to the client as is.
// Its status and whether it is recoverable come from the table of codes,
// its source from the code and status (Origin). Wrap, From, WithStatus and
// Suggest adjust it.
func New(code, message string) *Error {
	c, ok := codes[code]
	if !ok {
		c.status = http.StatusInternalServerError
	}
	e := &Error{Code: code, Status: c.status, Message: message, Recoverable: c.recoverable}
	e.Source = e.Origin()
	return e
}

// Errorf is New with a formatted message. Each argument is clipped to
// MaxEcho bytes (clipArgs): such messages echo what a client sent.
func Errorf(code, format string, args ...any) *Error {
	return New(code, fmt.Sprintf(format, clipArgs(args)...))
}

// Wrap sets the cause, logged and never shown, and returns e.
func (e *Error) Wrap(err error) *Error {
	e.Err = err
	return e
}

// From sets the source where it is not the one the code implies (a 4xx
// the server caused, a failure the IDE reported), and returns e.
func (e *Error) From(source string) *Error {
	e.Source = source
	return e
}

// WithStatus sets a status other than the code's, for a code whose status
// depends on who failed, and returns e.
func (e *Error) WithStatus(status int) *Error {
	e.Status = status
	return e
}

// Until sets ResetsAt and returns e.
func (e *Error) Until(t time.Time) *Error {
	e.ResetsAt = t
	return e
}

// RetryAfter is the value of the Retry-After header of an error with
// ResetsAt: the whole seconds from now until then, at least 1; "" without
// ResetsAt.
func (e *Error) RetryAfter(now time.Time) string {
	if e.ResetsAt.IsZero() {
		return ""
	}
	secs := math.Ceil(e.ResetsAt.Sub(now).Seconds())
	return fmt.Sprint(int64(max(secs, 1)))
}

// Internal wraps an unexpected failure; its message says nothing internal.
func Internal(err error) *Error {
	return New(CodeInternal, "internal error; the gateway logged the details under this request id").Wrap(err)
}

// AsError returns err as an *Error, wrapping anything else as INTERNAL.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// Canceled turns an emitter failure (the client went away) into a quiet
// end; nil stays nil.
func Canceled(err error) error {
	if err == nil {
		return nil
	}
	return New(CodeCanceled, "the client went away").Wrap(err)
}
