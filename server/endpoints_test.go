package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/conversation"
)

// Stand-ins for every optional feature: enough to register its routes,
// never called.
type (
	anyContexts  struct{ conversation.Repo }
	anyHandoffs  struct{ Handoffs }
	anySchedules struct{ Schedules }
	anyKeys      struct{ Keys }
	anyOpenAI    struct{ http.Handler }
	// anyMeter's Begin is called by every request: only for route lists.
	anyMeter struct{ Meter }
)

func (anyOpenAI) WriteError(http.ResponseWriter, *apierr.Error) {}

// TestEndpointList: the NOT_FOUND of a path no route serves lists every
// route the server registered, with every feature on (the playground, the
// OpenAI API, schedules, hand-offs, /metrics, /mcp); the list follows the
// route table, so a feature that is off is not listed.
func TestEndpointList(t *testing.T) {
	h := http.NotFoundHandler()
	full := Config{Contexts: anyContexts{}, Handoffs: anyHandoffs{}, Schedules: anySchedules{},
		MCP: h, Metrics: h, UI: h, OpenAI: anyOpenAI{h}}
	tests := []struct {
		name    string
		cfg     Config
		want    []string
		notWant []string
	}{
		{"every feature", full,
			[]string{"GET /", "POST /agent, GET /agents, GET|POST /agents/{name}, POST /agents/{name}/prompt",
				"GET|PATCH|DELETE /contexts/{id}", "POST /handoffs", "GET /handoffs/{id}", "GET /tasks/{id}",
				"GET|POST /schedules", "POST /schedules/{id}/run", "GET /knowledge-bases", "POST /knowledge-bases/{id}/search",
				"/mcp", "GET /metrics", "GET /ui", "GET /ui/*", "/v1/*", "GET /healthz"}, nil},
		{"no optional feature", Config{},
			[]string{"POST /agent", "GET /healthz", "GET /knowledge-bases"},
			[]string{"/ui", "/v1", "/schedules", "/handoffs", "/metrics", "/mcp", "/contexts", "GET /,"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.cfg)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/nope", nil))
			var body ErrorResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusNotFound || body.Content.ErrorCode != apierr.CodeNotFound {
				t.Fatalf("GET /nope: %d %s (%v)", rec.Code, rec.Body, err)
			}
			got := body.Content.SuggestedAction
			for _, r := range s.echo.Routes() { // every registered route is listed
				if !strings.Contains(got, showPath(r.Path)) {
					t.Errorf("route %s %s missing from %q", r.Method, r.Path, got)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q missing from %q", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("%q in %q, but its feature is off", w, got)
				}
			}
		})
	}
}

// TestEndpointListFormat: methods in a fixed order per path, paths sorted,
// parameters as {name}, an Any route by its path alone.
func TestEndpointListFormat(t *testing.T) {
	e := echo.New()
	h := func(echo.Context) error { return nil }
	e.DELETE("/b/:id", h)
	e.GET("/b/:id", h)
	e.PATCH("/b/:id", h)
	e.Any("/c", h)
	e.POST("/a", h)
	if got, want := endpointList(e.Routes()), "POST /a, GET|PATCH|DELETE /b/{id}, /c"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
