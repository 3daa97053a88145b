package runner

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// resumeStores are the stores a paused run is kept in: each test of a
// resumed run runs over both.
func resumeStores(t *testing.T) map[string]func() store.Store {
	return map[string]func() store.Store{
		"memory": func() store.Store { return store.NewMemory() },
		"sqlite": func() store.Store {
			s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
	}
}

// turnsBody is a request of agent t whose conversation turns hold what a
// JSON round trip would change: spaces, <, > and &, an escaped character.
func turnsBody(input string) string {
	return `{"agent":"t","messages":[{"role": "user",  "content": "is a<b && c>d?"},` +
		`{"role":"assistant","content":"yes \u00e9"}],"contextVariables":[{"name":"userInputPrompt","value":"` + input + `"}]}`
}

// TestResumedUpstreamRequests: the upstream request of every resumed turn
// is byte for byte the conversation the paused round had (system prompt,
// the client's turns as they came, the user's question, the model's tool
// calls) followed by the tool results, whichever store kept it. The
// golden file holds every upstream body of the exchange, one a line.
func TestResumedUpstreamRequests(t *testing.T) {
	for name, open := range resumeStores(t) {
		for _, tc := range []struct {
			scenario, input string
			answer          func(t *testing.T, rec *emit.Recorder) string
		}{
			{"consent-accept", "deploy", func(t *testing.T, rec *emit.Recorder) string {
				return `{"agent":"t","action":{"action":"confirm","state":` + q(lastAction(t, rec).State) + `,"accepted":true}}`
			}},
			{"consent-decline", "deploy", func(t *testing.T, rec *emit.Recorder) string {
				return `{"agent":"t","action":{"action":"confirm","state":` + q(lastAction(t, rec).State) + `,"accepted":false}}`
			}},
			{"frontend", "read", func(t *testing.T, rec *emit.Recorder) string {
				return `{"agent":"t","toolResults":[{"callId":"` + toolCallID(t, rec) +
					`","status":"SUCCESS","result":{"content":"if a < b {}"},"executionTime":7,"clientInfo":{"deviceType":"desktop"}}]}`
			}},
		} {
			t.Run(name+"/"+tc.scenario, func(t *testing.T) {
				r, m := toolRunner(t, open())
				rec, err := runRequest(t, r, turnsBody(tc.input))
				if err != nil {
					t.Fatal(err)
				}
				if rec, err = runRequest(t, r, tc.answer(t, rec)); err != nil {
					t.Fatal(err)
				}
				if e := rec.Err(); e != nil {
					t.Fatalf("the resumed run failed: %+v", e)
				}
				bodies := m.Bodies()
				if len(bodies) != 2 {
					t.Fatalf("%d upstream requests, want 2", len(bodies))
				}
				checkMessages(t, bodies[1])
				first, resumed := messagesOf(t, bodies[0]), messagesOf(t, bodies[1])
				if len(resumed) < len(first) {
					t.Fatalf("the resumed request has %d messages, the first %d", len(resumed), len(first))
				}
				for i := range first {
					if !bytes.Equal(first[i], resumed[i]) {
						t.Errorf("message %d: resumed as %s, sent first as %s", i, resumed[i], first[i])
					}
				}
				// A tool the gateway runs takes the time it takes: only its
				// executionTime is not compared.
				got := append(bytes.Join(bodies, []byte("\n")), '\n')
				if strings.HasPrefix(tc.scenario, "consent") {
					got = ranFor.ReplaceAll(got, []byte(`\"executionTime\":0}`))
				}
				golden.Check(t, "testdata/resume/"+tc.scenario+".txt", got)
			})
		}
	}
}

// toolCallID is the callId of the copilot_tool_call rec ends with.
func toolCallID(t *testing.T, rec *emit.Recorder) string {
	t.Helper()
	for _, f := range rec.Frames() {
		if f.Kind == "toolcall" {
			return f.ToolCall.CallID
		}
	}
	t.Fatalf("no tool call in %q", rec.Transcript())
	return ""
}

// messagesOf splits an upstream body's messages, each as its bytes.
func messagesOf(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var b struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("upstream body %s: %v", body, err)
	}
	return b.Messages
}

// checkMessages fails unless every message of body is an object with a
// role, as a strict model demands.
func checkMessages(t *testing.T, body []byte) {
	t.Helper()
	for i, m := range messagesOf(t, body) {
		var msg struct{ Role string }
		if err := json.Unmarshal(m, &msg); err != nil || msg.Role == "" || !strings.HasPrefix(string(m), "{") {
			t.Errorf("message %d is %s, not a message", i, m)
		}
	}
}

// ranFor matches the executionTime of a tool the gateway ran, in a tool
// message.
var ranFor = regexp.MustCompile(`\\"executionTime\\":[0-9]+}`)

// numbersAgent keeps numbers in a plan's state and in a completed step's
// result across a consent pause, and in the state its action's handler
// reads.
const numbersAgent = `
name: big
tools:
  - {name: deploy, description: Deploys, runtime: builtin, entry: deploy, permissionLevel: USER_CONSENT}
commands:
  - name: default
    steps:
      - id: init
        set: {n: 10000000, big: 9007199254740993, ratio: 0.5, list: [20000000]}
      - id: count
        set: {c: 30000000}
      - id: before
        dependsOn: [init, count]
        reply: "before {{ .state.n }} {{ .state.big }} {{ .state.ratio }} {{ index .state.list 0 }} {{ .steps.count.result.c }}|"
      - id: deploy
        tool: deploy
        dependsOn: [before]
      - id: after
        dependsOn: [deploy]
        reply: "after {{ .state.n }} {{ .state.big }} {{ .state.ratio }} {{ index .state.list 0 }} {{ .steps.count.result.c }}|"
      - id: ask
        dependsOn: [after]
        action:
          action: confirm
          data: {title: More, message: m}
          onAccept:
            - id: say
              reply: "handler {{ .state.n }} {{ .state.big }} {{ .state.ratio }} {{ index .state.list 0 }}"
`

// TestResumedNumbers: numbers a plan kept before it paused read the same
// after it resumes, and in its action's handler, whichever store kept
// them: 10000000, not 1e+07, and 2^53+1 exactly.
func TestResumedNumbers(t *testing.T) {
	for name, open := range resumeStores(t) {
		t.Run(name, func(t *testing.T) {
			r, _ := toolRunner(t, open(), numbersAgent)
			rec, err := runRequest(t, r, `{"agent":"big"}`)
			if err != nil {
				t.Fatal(err)
			}
			const nums = "10000000 9007199254740993 0.5 20000000 30000000|"
			if got := rec.Transcript(); got != "before "+nums {
				t.Fatalf("before the pause: %q %+v", got, rec.Err())
			}
			accept := func(rec *emit.Recorder) string {
				return `{"agent":"big","action":{"action":"confirm","state":` + q(lastAction(t, rec).State) + `,"accepted":true}}`
			}
			if rec, err = runRequest(t, r, accept(rec)); err != nil {
				t.Fatal(err)
			}
			if got := rec.Transcript(); got != "after "+nums {
				t.Fatalf("after the pause: %q %+v", got, rec.Err())
			}
			if rec, err = runRequest(t, r, accept(rec)); err != nil {
				t.Fatal(err)
			}
			if got := rec.Transcript(); got != "handler 10000000 9007199254740993 0.5 20000000" {
				t.Fatalf("in the handler: %q %+v", got, rec.Err())
			}
		})
	}
}

// misrouteAgents: another agent, and one whose command with a frontend tool
// needs a context variable.
const misrouteAgents = `
name: other
commands:
  - name: default
    reply: other
---
name: needs
tools:
  - {name: read_file, description: Reads a file in the IDE, runtime: frontend, parameters: {type: object, properties: {path: {type: string}}}}
  - {name: deploy, description: Deploys, runtime: builtin, entry: deploy, permissionLevel: USER_CONSENT}
commands:
  - name: plan
    steps:
      - {id: deploy, tool: deploy}
      - {id: after, dependsOn: [deploy], reply: "after:{{ .steps.deploy.result }}"}
    contextVariableCollectionStrategy:
      contextVariables:
        - name: activeEditor
          required: true
  - name: default
    tools: [read_file]
    messageTemplates:
      - {role: system, template: "You read files."}
    contextVariableCollectionStrategy:
      contextVariables:
        - name: activeEditor
          required: true
`

// TestRefusedResumeLeavesRunWaiting: an answer to a paused run that is
// refused before its stream (results sent to another agent, a context
// variable the command requires missing, a consent state for another
// agent) leaves the run waiting: the right request afterwards resumes it,
// once.
func TestRefusedResumeLeavesRunWaiting(t *testing.T) {
	const editor = `{"name":"activeEditor","value":{"filePath":"a.go","language":"go","content":"x"}}`
	results := func(agent, id, vars string) string {
		return `{"agent":"` + agent + `","toolResults":[{"callId":"` + id + `","status":"SUCCESS","result":"package main"}]` + vars + `}`
	}
	for name, open := range resumeStores(t) {
		t.Run(name, func(t *testing.T) {
			r, _ := toolRunner(t, open(), strings.Split(misrouteAgents, "---\n")...)
			for _, tc := range []struct {
				name, agent, start, vars string
				wrong                    []string // refused answers, by the code they get
				wrongCode                []string
			}{
				{"frontend", "t", promptBody("read"), "",
					[]string{"other", "nosuch"}, []string{apierr.CodeStateInvalid, apierr.CodeAgentNotFound}},
				{"required variable", "needs",
					`{"agent":"needs","contextVariables":[{"name":"userInputPrompt","value":"read"},` + editor + `]}`,
					`,"contextVariables":[` + editor + `]`,
					[]string{"needs", "other"}, []string{apierr.CodeInvalidContext, apierr.CodeStateInvalid}},
			} {
				rec, err := runRequest(t, r, tc.start)
				if err != nil {
					t.Fatal(err)
				}
				id := toolCallID(t, rec)
				for i, wrong := range tc.wrong {
					_, err := runRequest(t, r, results(wrong, id, ""))
					if e := apierr.AsError(err); e == nil || e.Code != tc.wrongCode[i] {
						t.Fatalf("%s: results sent to %q without the variables: %v, want %s", tc.name, wrong, err, tc.wrongCode[i])
					}
				}
				rec, err = runRequest(t, r, results(tc.agent, id, tc.vars))
				if err != nil {
					t.Fatalf("%s: the right answer after refused ones: %v", tc.name, err)
				}
				if !strings.Contains(rec.Transcript(), "package main") {
					t.Fatalf("%s: resumed %q %+v", tc.name, rec.Transcript(), rec.Err())
				}
				if _, err := runRequest(t, r, results(tc.agent, id, tc.vars)); err == nil || !strings.Contains(err.Error(), "no longer waiting") {
					t.Fatalf("%s: answering twice: %v", tc.name, err)
				}
			}
			// A consent state shown by agent t, sent to another agent.
			rec, err := runRequest(t, r, promptBody("deploy"))
			if err != nil {
				t.Fatal(err)
			}
			state := q(lastAction(t, rec).State)
			if _, err := runRequest(t, r, `{"agent":"other","action":{"action":"confirm","state":`+state+`,"accepted":true}}`); apierr.AsError(err) == nil || apierr.AsError(err).Code != apierr.CodeStateInvalid {
				t.Fatalf("consent sent to another agent: %v", err)
			}
			rec, err = runRequest(t, r, `{"agent":"t","action":{"action":"confirm","state":`+state+`,"accepted":true}}`)
			if err != nil || !strings.Contains(rec.Transcript(), `"result":"deployed"`) {
				t.Fatalf("consent after a refused one: %v %q", err, rec.Transcript())
			}
			// A plan paused on a consent step, answered without the
			// variable its command requires, then with it.
			if rec, err = runRequest(t, r, `{"agent":"needs","command":"plan","contextVariables":[`+editor+`]}`); err != nil {
				t.Fatal(err)
			}
			accept := `{"agent":"needs","action":{"action":"confirm","state":` + q(lastAction(t, rec).State) + `,"accepted":true}`
			if _, err := runRequest(t, r, accept+`}`); apierr.AsError(err).Code != apierr.CodeInvalidContext {
				t.Fatalf("plan consent without its variable: %v", err)
			}
			rec, err = runRequest(t, r, accept+`,"contextVariables":[`+editor+`]}`)
			if err != nil || rec.Transcript() != "after:deployed" {
				t.Fatalf("plan consent after a refused one: %v %q %+v", err, rec.Transcript(), rec.Err())
			}
		})
	}
}

// fallbackAgent has a frontend tool of each fallbackBehavior.
const fallbackAgent = `
name: fb
tools:
  - {name: read_abort, description: Reads, runtime: frontend, fallbackBehavior: ABORT, parameters: {type: object, properties: {path: {type: string}}}}
  - {name: read_default, description: Reads, runtime: frontend, parameters: {type: object, properties: {path: {type: string}}}}
  - {name: read_skip, description: Reads, runtime: frontend, fallbackBehavior: SKIP, parameters: {type: object, properties: {path: {type: string}}}}
  - {name: read_alt, description: Reads, runtime: frontend, fallbackBehavior: USE_ALTERNATIVE, parameters: {type: object, properties: {path: {type: string}}}}
commands:
  - name: default
    tools: [read_abort, read_default, read_skip, read_alt]
    messageTemplates:
      - {role: system, template: "You read files."}
    actions:
      - action: confirm
        data: {title: After, message: the model}
`

// TestFrontendFallback: a frontend tool's result saying the tool could
// not run in the IDE (status TIMEOUT, UNAVAILABLE, NOT_SUPPORTED or
// DECLINED, or ERROR with such a code) follows the tool's
// fallbackBehavior. ABORT (the default) ends the run with TOOL_FAILED, the
// model not asked again; SKIP gives the model the result and offers it the
// tool no more; USE_ALTERNATIVE gives the model the IDE's error as it is.
// A tool that ran and failed (ERROR FILE_NOT_FOUND) gives its error to the
// model whatever its fallbackBehavior, and the run goes on. The golden
// files hold the upstream bodies after the IDE's answer.
func TestFrontendFallback(t *testing.T) {
	abort := func(tool, why string) string {
		return `frontend tool "` + tool + `" did not run in the IDE (` + why + `), and its fallbackBehavior is ABORT`
	}
	for name, open := range resumeStores(t) {
		for _, tc := range []struct {
			tool, status, code, abort string
		}{
			{"read_abort", "ERROR", "FILE_NOT_FOUND", ""},
			{"read_default", "ERROR", "FILE_NOT_FOUND", ""},
			{"read_default", "ERROR", "", ""},
			{"read_skip", "ERROR", "FILE_NOT_FOUND", ""},
			{"read_abort", "SUCCESS", "", ""},
			{"read_abort", "TIMEOUT", "", abort("read_abort", "TIMEOUT")},
			{"read_abort", "TIMEOUT", "TIMEOUT", abort("read_abort", "TIMEOUT, TIMEOUT: it did not run")},
			{"read_abort", "ERROR", "UNAVAILABLE", abort("read_abort", "ERROR, UNAVAILABLE: it did not run")},
			{"read_default", "ERROR", "NOT_SUPPORTED", abort("read_default", "ERROR, NOT_SUPPORTED: it did not run")},
			{"read_default", "ERROR", "DECLINED", abort("read_default", "ERROR, DECLINED: it did not run")},
			{"read_default", "ERROR", "UNKNOWN_TOOL", abort("read_default", "ERROR, UNKNOWN_TOOL: it did not run")},
			{"read_default", "UNAVAILABLE", "", abort("read_default", "UNAVAILABLE")},
			{"read_abort", "NOT_SUPPORTED", "", abort("read_abort", "NOT_SUPPORTED")},
			{"read_abort", "DECLINED", "", abort("read_abort", "DECLINED")},
			{"read_skip", "ERROR", "UNAVAILABLE", ""},
			{"read_skip", "DECLINED", "", ""},
			{"read_alt", "ERROR", "UNAVAILABLE", ""},
		} {
			id := strings.Join(slices.DeleteFunc([]string{tc.tool, tc.status, tc.code}, func(s string) bool { return s == "" }), "-")
			t.Run(name+"/"+id, func(t *testing.T) {
				r, m := toolRunner(t, open(), fallbackAgent)
				rec, err := runRequest(t, r, `{"agent":"fb","contextVariables":[{"name":"userInputPrompt","value":"call:`+tc.tool+`"}]}`)
				if err != nil {
					t.Fatal(err)
				}
				result := `"result":{"content":"package main"}`
				switch {
				case tc.code == "FILE_NOT_FOUND":
					result = `"error":{"code":"FILE_NOT_FOUND","message":"no such file"}`
				case tc.code != "":
					result = `"error":{"code":"` + tc.code + `","message":"it did not run"}`
				case tc.status != "SUCCESS":
					result = `"result":null`
				}
				rec, err = runRequest(t, r, `{"agent":"fb","toolResults":[{"callId":"`+toolCallID(t, rec)+`","status":"`+tc.status+`",`+result+`,"executionTime":3}]}`)
				if err != nil {
					t.Fatal(err)
				}
				bodies := m.Bodies()
				if tc.abort != "" {
					e := rec.Err()
					if e == nil || e.Code != "TOOL_FAILED" || e.Message != tc.abort || e.Source != apierr.SourceClient || e.Recoverable {
						t.Fatalf("error %+v, transcript %q", e, rec.Transcript())
					}
					if len(bodies) != 1 {
						t.Fatalf("the model was asked again after an ABORT: %s", bodies[len(bodies)-1])
					}
					for _, f := range rec.Frames() {
						if f.Kind == "action" || f.Kind == "chunk" && f.Text != "" {
							t.Fatalf("the run went on after an ABORT: %+v", f)
						}
					}
					return
				}
				if e := rec.Err(); e != nil {
					t.Fatalf("error %+v", e)
				}
				if len(bodies) != 2 {
					t.Fatalf("%d upstream requests, want 2", len(bodies))
				}
				golden.Check(t, "testdata/resume/fallback-"+id+".txt", append(bodies[1], '\n'))
				if a := lastAction(t, rec); a == nil {
					t.Errorf("the run did not go on to the command's actions: %+v", rec.Frames())
				}
			})
		}
	}
}
