package openaiapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
)

// Config configures the endpoint.
type Config struct {
	// Runner runs the agents' commands.
	Runner *runner.Runner
	// Passthrough, when set, answers the chat completions of models that
	// are no agent: the upstream model platform's (NewPassthrough). Nil
	// answers them model_not_found.
	Passthrough http.Handler
	// PassthroughModels are the models Passthrough may answer, as
	// path.Match patterns ("gpt-4o*", "*"); any other model that is no
	// agent is model_not_found and the upstream is not called. None admits
	// no model. Check them with CheckPatterns.
	PassthroughModels []string
	// BodyLimit caps request bodies in bytes; 0 means 16 MiB.
	BodyLimit int64
	// KeepAlive is the silence after which a stream gets a ": ping"
	// comment; 0 means 15s.
	KeepAlive time.Duration
	// Now is the clock of the answers' created times; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Header names the handler reads.
const (
	headerRequestID = "X-Request-Id"
	headerToken     = "X-Agentgw-Token"
)

// Handler serves /v1/models and /v1/chat/completions.
type Handler struct {
	cfg     Config
	mux     *http.ServeMux
	created int64
}

// New returns the endpoint's handler.
func New(cfg Config) *Handler {
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = 16 << 20
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 15 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), created: cfg.Now().Unix()}
	h.mux.HandleFunc("GET /v1/models", h.listModels)
	h.mux.HandleFunc("GET /v1/models/{model...}", h.getModel)
	h.mux.HandleFunc("POST /v1/chat/completions", h.chatCompletions)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		answerError(w, r, apierr.Errorf(apierr.CodeNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path).
			Suggest("GET /v1/models, GET /v1/models/{model}, POST /v1/chat/completions"))
	})
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// WriteError implements the server's error rendering for /v1/ routes.
func (h *Handler) WriteError(w http.ResponseWriter, e *apierr.Error) { WriteError(w, e) }

// modelJSON is one model of GET /v1/models.
type modelJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// models lists each agent's commands an OpenAI client can use as models:
// "agent" for its default command, "agent/command" for the others, agents
// sorted by name and commands in definition order. A command that requires
// a context variable this endpoint cannot fill (usable) is left out.
func (h *Handler) models() []modelJSON {
	var out []modelJSON
	for _, a := range h.cfg.Runner.Registry().List() {
		for _, c := range a.Def.Commands {
			if c == nil || !usable(c) {
				continue
			}
			id := a.Name()
			if c.Name != program.DefaultCommand {
				id += "/" + c.Name
			}
			out = append(out, modelJSON{ID: id, Object: "model", Created: h.created, OwnedBy: "agentgw"})
		}
	}
	return out
}

func (h *Handler) listModels(w http.ResponseWriter, r *http.Request) {
	models := h.models()
	if who, ok := access.FromContext(r.Context()); ok && who.Scope != nil {
		models = slices.DeleteFunc(models, func(m modelJSON) bool { return !mayUse(who, m.ID) })
	}
	if models == nil {
		models = []modelJSON{}
	}
	writeJSON(w, struct {
		Object string      `json:"object"`
		Data   []modelJSON `json:"data"`
	}{"list", models})
}

func (h *Handler) getModel(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("model")
	who, scoped := access.FromContext(r.Context())
	for _, m := range h.models() {
		if m.ID == id && (!scoped || who.Scope == nil || mayUse(who, id)) {
			writeJSON(w, m)
			return
		}
	}
	answerError(w, r, modelNotFound(id))
}

// mayUse reports whether who's scope admits the agent model id ("agent"
// or "agent/command").
func mayUse(who access.Caller, id string) bool {
	a, c, _ := strings.Cut(id, "/")
	return who.MayCall(a, cmp.Or(c, program.DefaultCommand))
}

// notInScope is the error of a model the caller's key may not use.
func notInScope(model string) *apierr.Error {
	return apierr.Errorf(apierr.CodeForbidden, "this key may not use the model %q", model).
		Suggest("GET /v1/models lists the agents this key may use; ask an admin to widen the key's agents or models")
}

// writeJSON writes v as JSON, HTML characters unescaped as OpenAI's are.
func writeJSON(w http.ResponseWriter, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
}

// filled are the context variables a chat completion request fills: the
// last user message and the system messages (agentBody).
var filled = map[string]bool{"userInputPrompt": true, "globalPrompts": true}

// usable reports whether an OpenAI client can run c: whether every context
// variable it requires is one the endpoint fills. A command that requires
// the IDE's activeEditor, say, would answer every request 422.
func usable(c *agent.Command) bool {
	if c.ContextVariableCollectionStrategy == nil {
		return true
	}
	for _, v := range c.ContextVariableCollectionStrategy.ContextVariables {
		if v != nil && v.Required && !filled[v.Name] {
			return false
		}
	}
	return true
}

// passes reports whether model matches one of PassthroughModels.
func (h *Handler) passes(model string) bool {
	for _, p := range h.cfg.PassthroughModels {
		if ok, _ := path.Match(p, model); ok {
			return true
		}
	}
	return false
}

// CheckPatterns reports the first of patterns path.Match cannot use.
func CheckPatterns(patterns []string) error {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("passthrough model pattern %q: %w", p, err)
		}
	}
	return nil
}

// bodyStart bounds the buffer readBody allocates before any byte arrived:
// a declared length is a claim (the server's own body reader has the same
// bound).
const bodyStart = 32 << 10

// readBody reads body to its end as io.ReadAll does, into one buffer of
// the declared length size when it is known, within limit and bodyStart:
// the server's middleware has read the body already and hands it on in
// memory, so it is there whole, and io.ReadAll's buffer, grown from 512
// bytes, allocated twice the bytes of the bench's 2.4 KB request in four
// pieces. What is longer than the buffer (a body longer than declared, or
// over bodyStart) is read on as io.ReadAll does, growing as bytes arrive;
// a shorter one is what came.
func readBody(body io.Reader, size, limit int64) ([]byte, error) {
	if size <= 0 || size > limit {
		return io.ReadAll(body)
	}
	buf := make([]byte, min(size, bodyStart)+1) // +1: the end is seen without growing
	n, err := io.ReadFull(body, buf)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return buf[:n], nil
	case err != nil:
		return buf[:n], err
	}
	rest, err := io.ReadAll(body)
	return append(buf, rest...), err
}

// isAgent reports whether the registry holds an agent of that name.
func (h *Handler) isAgent(name string) bool {
	_, ok := h.cfg.Runner.Registry().Get(name)
	return ok
}

// chatCompletions runs the agent command the model names, or passes the
// request of another model through to the upstream.
func (h *Handler) chatCompletions(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(http.MaxBytesReader(w, r.Body, h.cfg.BodyLimit), r.ContentLength, h.cfg.BodyLimit)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			answerError(w, r, apierr.Errorf(apierr.CodePayloadTooLarge, "the body is over the gateway's limit of %d bytes", h.cfg.BodyLimit))
			return
		}
		answerError(w, r, badRequest("reading the body: %v", err))
		return
	}
	top, err := decodeTop(body)
	if err != nil {
		answerError(w, r, apierr.AsError(err))
		return
	}
	model, err := modelOf(top)
	if err != nil {
		answerError(w, r, apierr.AsError(err))
		return
	}
	// The gateway's own token never goes upstream, auth enabled or not.
	r.Header.Del(headerToken)
	agentName, command, ok := resolve(model, h.isAgent)
	who, scoped := access.FromContext(r.Context())
	scoped = scoped && who.Scope != nil
	if !ok {
		if h.cfg.Passthrough == nil || !h.passes(model) {
			answerError(w, r, modelNotFound(model))
			return
		}
		if scoped && !who.MayUseModel(model) {
			answerError(w, r, notInScope(model))
			return
		}
		h.passThrough(w, r, body, top, model)
		return
	}
	if scoped && !who.MayCall(agentName, cmp.Or(command, program.DefaultCommand)) {
		answerError(w, r, notInScope(model))
		return
	}
	if err := h.run(w, r, top, agentName, command); err != nil {
		answerError(w, r, apierr.AsError(err))
	}
}

// passThrough sends the request to the upstream as it is, and reports the
// call to the request's observers as the runner reports its model calls
// (agentgw_upstream_requests_total, agentgw_tokens_total with the
// upstream's usage, the access log's model and tokens), and an
// upstream's error answer as the request's code.
func (h *Handler) passThrough(w http.ResponseWriter, r *http.Request, body []byte, top *topLevel, model string) {
	stream := top.streams()
	res := &passResult{}
	watch := observe.From(r.Context())
	ctx, end := watch.Upstream(context.WithValue(r.Context(), passKey{}, res), observe.Upstream{Model: model, Stream: stream})
	r = r.WithContext(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	uw := &usageWriter{ResponseWriter: w, stream: stream}
	h.cfg.Passthrough.ServeHTTP(uw, r)
	if res.code != "" {
		watch.Answered(res.code)
	}
	u, _ := uw.result()
	end(observe.UpstreamResult{Model: model, Status: res.status, Attempts: 1, Code: res.code, Usage: u})
}

// run runs command of agentName for the request; an error is one before
// the answer started.
func (h *Handler) run(w http.ResponseWriter, r *http.Request, top *topLevel, agentName, command string) error {
	// Named before the request is checked, as the agent protocol's
	// requests are, so that a refused one is counted under its agent.
	observe.From(r.Context()).Routed(agentName, command, true)
	cr, err := decodeRequest(top)
	if err != nil {
		return err
	}
	req, err := agentRequest(cr, agentName, command)
	if err != nil {
		return err
	}
	req.ID = w.Header().Get(headerRequestID)
	if req.ID == "" {
		req.ID = uuid.NewString()
	}
	req.Header = r.Header
	run, err := h.cfg.Runner.Prepare(req)
	if err != nil {
		return err
	}
	if run.Remote() && req.Body == nil {
		// What a remote agent is sent: the agent request of the chat
		// completion, written only for such an agent.
		if req.Body, err = agentBody(cr, agentName, command); err != nil {
			return err
		}
	}
	// The access log, the metrics and the traces name the agent and
	// command, as for the agent protocol's requests.
	observe.From(r.Context()).Routed(run.Agent(), run.Command(), run.Loaded())
	tap := &usageTap{}
	ctx := tapUsage(r.Context(), tap)
	id, created := "chatcmpl-"+uuid.NewString(), h.cfg.Now().Unix()
	em := &emitter{agent: agentName}
	if !cr.Stream {
		em.out, em.keepText = discard{}, true
		run.Execute(ctx, em)
		if em.err != nil {
			return em.err
		}
		writeJSON(w, completion(id, created, cr, em, tap))
		return nil
	}
	s := newStreamOut(w, id, cr.Model, created, cr.IncludeUsage)
	em.out = s
	if err := s.start(); err != nil {
		return nil // the client went away
	}
	stop := s.keepAlive(h.cfg.KeepAlive)
	run.Execute(ctx, em)
	stop()
	if em.err != nil {
		_ = s.fail(toObject(em.err))
		return nil
	}
	_ = s.finish(em.usageOf(cr, tap), tap.finishReason())
	return nil
}

// discard is the out of an answer written once the run ended.
type discard struct{}

func (discard) content(string, bool) error { return nil }

func (discard) plain([]byte, bool) error { return nil }

func (discard) flush() error { return nil }

// usageOf is the usage of the run's model calls as the llm client counted
// them (the upstream's, or estimated from the prompt it really sent), or,
// for an answer no model gave, an estimate from the request's messages and
// the answer (llm.EstimateTokens).
func (e *emitter) usageOf(cr *chatRequest, tap *usageTap) usage {
	u, ok := tap.usage()
	if !ok {
		u = usage{PromptTokens: llm.EstimateTokens(promptText(cr)), CompletionTokens: e.completionTokens()}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

// completionJSON is a chat.completion.
type completionJSON struct {
	ID      string                 `json:"id"`
	Object  string                 `json:"object"`
	Created int64                  `json:"created"`
	Model   string                 `json:"model"`
	Choices []completionChoiceJSON `json:"choices"`
	Usage   usage                  `json:"usage"`
}

type completionChoiceJSON struct {
	Index   int `json:"index"`
	Message struct {
		Role    string  `json:"role"`
		Content string  `json:"content"`
		Refusal *string `json:"refusal"`
	} `json:"message"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason string    `json:"finish_reason"`
}

func completion(id string, created int64, cr *chatRequest, em *emitter, tap *usageTap) completionJSON {
	c := completionChoiceJSON{FinishReason: tap.finishReason()}
	c.Message.Role, c.Message.Content = "assistant", em.text.String()
	return completionJSON{ID: id, Object: "chat.completion", Created: created, Model: cr.Model,
		Choices: []completionChoiceJSON{c}, Usage: em.usageOf(cr, tap)}
}
