package openaiapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/observe"
)

// errorBody is OpenAI's error shape.
type errorBody struct {
	Error errorObject `json:"error"`
}

// errorObject is the object of an OpenAI error, before the stream and
// inside it.
type errorObject struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    string  `json:"code"`
}

// Codes of OpenAI errors that clients recognise.
const (
	codeModelNotFound = "model_not_found"
	codeInvalidAPIKey = "invalid_api_key"
	codeRateLimit     = "rate_limit_exceeded"
	codeQuota         = "insufficient_quota"
)

// toObject renders e as OpenAI does: invalid_request_error for the
// client's mistakes, server_error for the rest, with the codes OpenAI
// clients know where there is one and the gateway's code, in lower case,
// otherwise. The message carries the suggested action: the error object
// has no other place for it.
func toObject(e *apierr.Error) errorObject {
	o := errorObject{Type: "invalid_request_error", Code: strings.ToLower(e.Code), Message: e.Message}
	if s := e.Suggestion(); s != "" {
		o.Message += " (" + s + ")"
	}
	switch {
	case e.Code == apierr.CodeUnauthorized:
		o.Code = codeInvalidAPIKey
	case e.Code == apierr.CodeAgentNotFound || e.Code == apierr.CodeCommandNotFound:
		o.Code = codeModelNotFound
	case e.Code == apierr.CodeRateLimited:
		o.Type, o.Code = "requests", codeRateLimit
	case e.Code == apierr.CodeBudgetExceeded:
		o.Type, o.Code = codeQuota, codeQuota
	case e.Status >= 500 || e.Status < 400:
		o.Type = "server_error"
	}
	return o
}

// WriteError writes e before the stream as OpenAI does: its status and
// {"error":{"message","type","param","code"}}. The server renders the
// errors of its middleware (auth, body limit, rate limit) on /v1/ routes
// with it.
func WriteError(w http.ResponseWriter, e *apierr.Error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(errorBody{Error: toObject(e)})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.Code == apierr.CodeUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="agentgw"`)
	}
	status := e.Status
	if status < 400 {
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// answerError writes e as WriteError does and reports its code to the
// request's observers (the access log, the metrics, the traces), which
// count the request with it: the handler answers its errors itself, so
// the server sees no error returned.
func answerError(w http.ResponseWriter, r *http.Request, e *apierr.Error) {
	observe.From(r.Context()).Answered(e.Code)
	WriteError(w, e)
}

// modelNotFound is the error of a model that is no agent when nothing
// passes it through.
func modelNotFound(model string) *apierr.Error {
	return apierr.Errorf(apierr.CodeAgentNotFound, "the model %q does not exist: this endpoint's models are the gateway's agents", model).
		Suggest("GET /v1/models lists them")
}

// badRequest is a BAD_REQUEST with the message OpenAI clients show.
func badRequest(format string, args ...any) *apierr.Error {
	return apierr.Errorf(apierr.CodeBadRequest, format, args...).Suggest("send a chat completion request (POST /v1/chat/completions, OpenAI's shape)")
}
