package server_test

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
	"github.com/agentgw/agentgw/server"
)

// TestObservedRequests: what the observers of a request see, event by
// event, for a streamed answer with usage, a plan whose step fails, a
// request refused before the stream and a route that runs no agent.
func TestObservedRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body string
		upstream         string
		want             []string
	}{{
		name: "answer", path: "/agents/chat", body: `{"command":"default","contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`,
		upstream: "usage.sse",
		want: []string{
			"begin http /agents/:name",
			"phase decode", "phase decode end err=<nil>",
			"routed chat/ loaded=true", "routed chat/default loaded=true",
			"phase prompt", "phase prompt end err=<nil>",
			"upstream default-model stream=true messages=2",
			"upstream end model=default-model status=200 attempts=1 chunks=3 in=9 out=1 estimated=false finish=stop code=",
			"end ok code= status=200",
		},
	}, {
		name: "estimated", path: "/agents/chat", body: `{"command":"default","contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`,
		upstream: "normal.sse",
		want: []string{
			"begin http /agents/:name",
			"phase decode", "phase decode end err=<nil>",
			"routed chat/ loaded=true", "routed chat/default loaded=true",
			"phase prompt", "phase prompt end err=<nil>",
			"upstream default-model stream=true messages=2",
			"upstream end model=default-model status=200 attempts=1 chunks=4 in=16 out=4 estimated=true finish=stop code=",
			"end ok code= status=200",
		},
	}, {
		name: "failed step", path: "/agents/planner", body: `{"command":"fails"}`,
		want: []string{
			"begin http /agents/:name",
			"phase decode", "phase decode end err=<nil>",
			"routed planner/ loaded=true", "routed planner/fails loaded=true",
			"step before kind=reply", "step before end COMPLETED code=",
			"step boom kind=git", "step boom end FAILED code=REPOSITORIES_NOT_CONFIGURED",
			"failed REPOSITORIES_NOT_CONFIGURED",
			"end error code=REPOSITORIES_NOT_CONFIGURED status=200",
		},
	}, {
		name: "default command", path: "/agents/hello", body: `{}`,
		want: []string{
			"begin http /agents/:name",
			"phase decode", "phase decode end err=<nil>",
			"routed hello/ loaded=true", "routed hello/default loaded=true",
			"end ok code= status=200",
		},
	}, {
		name: "refused", path: "/agents/chat", body: `{"command":"nope"}`,
		want: []string{
			"begin http /agents/:name",
			"phase decode", "phase decode end err=<nil>",
			"routed chat/ loaded=true",
			"end error code=COMMAND_NOT_FOUND status=404",
		},
	}, {
		name: "bad body", path: "/agents/chat", body: `{"command":`,
		want: []string{
			"begin http /agents/:name",
			"phase decode", "phase decode end err=BAD_REQUEST: request body is not a valid JSON object: command: unexpected end of input looking for the beginning of a value: malformed JSON: command: unexpected end of input looking for the beginning of a value",
			"end error code=BAD_REQUEST status=400",
		},
	}, {
		name: "unknown agent", path: "/agents/nobody", body: `{}`,
		want: []string{
			"begin http /agents/:name",
			"phase decode", "phase decode end err=<nil>",
			"end error code=AGENT_NOT_FOUND status=404",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &observetest.Recorder{}
			opts := []option{withServer(func(c *server.Config) { c.Observers = observe.Observers{rec} })}
			if tt.upstream != "" {
				opts = append(opts, withUpstream(replay(t, tt.upstream)))
			}
			gw := newGateway(t, opts...)
			post(t, gw.URL+tt.path, tt.body)
			got := rec.Events()
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestObservedUpstreamHeaders: the upstream request carries what the
// observers inject (a tracer's traceparent), in place of the plugin's.
func TestObservedUpstreamHeaders(t *testing.T) {
	t.Parallel()
	for _, observed := range []bool{true, false} {
		var opts []option
		if observed {
			opts = append(opts, withServer(func(c *server.Config) { c.Observers = observe.Observers{observetest.Injector{Value: "00-test-01"}} }))
		}
		gw := newGateway(t, append(opts, withUpstream(replay(t, "normal.sse")))...)
		post(t, gw.URL+"/agents/chat", `{"command":"default"}`, "Traceparent", "00-from-plugin-01")
		got := gw.up.Only(t).Header.Get("Traceparent")
		// Without observers the plugin's own traceparent is forwarded
		// as the end-to-end header it is.
		want := "00-from-plugin-01"
		if observed {
			want = "00-test-01"
		}
		if got != want {
			t.Errorf("observed=%v: upstream traceparent %q, want %q", observed, got, want)
		}
	}
}
