package runner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// pinDocs is a request stage written outside the runner, as a feature's
// package would write it: for a command that declares the knowledgeBase
// variable it adds a reference of its own knowledge base and a system
// message, and notes what it saw in seen.
type pinDocs struct{ seen *[]string }

func (pinDocs) Name() string { return "pin-docs" }

func (s pinDocs) Prepare(_ context.Context, p stage.Prepared) error {
	opts, ok := p.Variable(contextvars.NameKnowledgeBase)
	*s.seen = append(*s.seen, fmt.Sprintf("pin-docs %s/%s declared=%v ids=%v input=%q", p.Agent(), p.Command(), ok, opts.KnowledgeBaseIDs, p.Context().UserInputPrompt))
	if !ok {
		return nil
	}
	set := p.Context()
	set.KnowledgeBase = append(set.KnowledgeBase, contextvars.KnowledgeBase{KnowledgeBaseID: "pinned",
		References: []contextvars.Reference{{Score: 1, Chunk: "Deploys go out on Tuesdays.", Metadata: contextvars.ReferenceMetadata{FileName: "ops.md", SourceType: "doc"}}}})
	set.GlobalPrompts = append(set.GlobalPrompts, contextvars.Prompt{Role: "system", Content: "pinned by " + s.Name()})
	p.Logger().Info("pinned")
	return nil
}

// after notes what the stage registered after pin-docs sees of it.
type after struct{ seen *[]string }

func (after) Name() string { return "after" }

func (s after) Prepare(_ context.Context, p stage.Prepared) error {
	*s.seen = append(*s.seen, fmt.Sprintf("after: %d knowledge bases", len(p.Context().KnowledgeBase)))
	return nil
}

// failing refuses every request with err.
type failing struct{ err error }

func (failing) Name() string                                    { return "failing" }
func (s failing) Prepare(context.Context, stage.Prepared) error { return s.err }

const stageAgent = `
name: docs
commands:
  - name: default
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
        - name: knowledgeBase
          resolverOptions: {knowledgeBaseIds: [pinned]}
    messageTemplates:
      - role: system
        template: "Answer from the references."
  - name: plain
    reply: "no references"
`

// okModel is the model of the stage tests: it answers every request "ok".
func okModel(t *testing.T) *llmtest.Model {
	return llmtest.New(t, llmtest.Repeat(llmtest.Text("ok")))
}

// stageRunner is a runner over stageAgent with stages, its model u.
func stageRunner(t *testing.T, u *llmtest.Model, stages ...stage.Stage) *runner.Runner {
	t.Helper()
	reg, err := stage.NewRegistry(stages...)
	if err != nil {
		t.Fatal(err)
	}
	agents, diags := program.Parse("docs.yaml", []byte(stageAgent))
	if diags.Errors() > 0 {
		t.Fatalf("the agent does not load:\n%s", diags)
	}
	client, err := llm.New(llm.Config{BaseURL: u.URL(), FirstByteTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{LLM: client, Stages: reg,
		ReferencesPrompt: func(kbs []contextvars.KnowledgeBase) string {
			var b strings.Builder
			for _, kb := range kbs {
				for _, r := range kb.References {
					fmt.Fprintf(&b, "[%s] %s: %s", kb.KnowledgeBaseID, r.Metadata.FileName, r.Chunk)
				}
			}
			return b.String()
		}})
}

// TestRegisteredStage registers request stages from outside the runner
// (one Register line each) and runs real requests: the stages run in
// registration order, see the agent, the command and its variables, and
// what pin-docs adds (a reference, a message) reaches the model's request,
// byte for byte.
func TestRegisteredStage(t *testing.T) {
	tests := []struct {
		name, body, wantUpstream, wantTranscript string
		wantSeen                                 []string
	}{
		{"a prompt", `{"agent":"docs","model":"m","contextVariables":[{"name":"userInputPrompt","value":"when do we deploy?"}]}`,
			`{"model":"m","messages":[{"role":"system","content":"Answer from the references."},` +
				`{"role":"system","content":"[pinned] ops.md: Deploys go out on Tuesdays."},` +
				`{"role":"system","content":"pinned by pin-docs"},{"role":"user","content":"when do we deploy?"}],"stream":true}`,
			"ok",
			[]string{`pin-docs docs/default declared=true ids=[pinned] input="when do we deploy?"`, "after: 1 knowledge bases"}},
		{"a reply, no knowledgeBase declared", `{"agent":"docs","command":"plain"}`, "", "no references",
			[]string{`pin-docs docs/plain declared=false ids=[] input=""`, "after: 0 knowledge bases"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			u := okModel(t)
			r := stageRunner(t, u, pinDocs{&seen}, after{&seen})
			req, err := request.Decode([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			run, err := r.Prepare(req)
			if err != nil {
				t.Fatal(err)
			}
			rec := &emit.Recorder{}
			run.Execute(t.Context(), rec)
			if got := rec.Transcript(); got != tc.wantTranscript {
				t.Errorf("transcript %q, want %q", got, tc.wantTranscript)
			}
			if got, want := strings.Join(seen, "\n"), strings.Join(tc.wantSeen, "\n"); got != want {
				t.Errorf("the stages saw\n%s\nwant\n%s", got, want)
			}
			var last string
			if bodies := u.Bodies(); len(bodies) > 0 {
				last = string(bodies[len(bodies)-1])
			}
			if last != tc.wantUpstream {
				t.Errorf("the upstream request:\n%s\nwant\n%s", last, tc.wantUpstream)
			}
		})
	}
}

// TestStageRefuses: a stage's error refuses the request before its stream,
// an *apierr.Error as it is (wrapped or not), any other as INTERNAL; the
// stages after it do not run and the model is not called.
func TestStageRefuses(t *testing.T) {
	denied := apierr.New(apierr.CodeForbidden, "not today")
	tests := []struct {
		name     string
		err      error
		wantCode string
		wantMsg  string
	}{
		{"an API error", denied, apierr.CodeForbidden, "not today"},
		{"a wrapped API error", fmt.Errorf("checking: %w", denied), apierr.CodeForbidden, "not today"},
		{"another error", errors.New("disk on fire"), apierr.CodeInternal, "internal error; the gateway logged the details under this request id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			u := okModel(t)
			r := stageRunner(t, u, failing{tc.err}, after{&seen})
			req, err := request.Decode([]byte(`{"agent":"docs","contextVariables":[{"name":"userInputPrompt","value":"q"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			run, err := r.Prepare(req)
			var e *apierr.Error
			if run != nil || !errors.As(err, &e) {
				t.Fatalf("Prepare: %v, %v; want an *apierr.Error", run, err)
			}
			if e.Code != tc.wantCode || e.Message != tc.wantMsg {
				t.Errorf("error %s %q, want %s %q", e.Code, e.Message, tc.wantCode, tc.wantMsg)
			}
			if tc.wantCode == apierr.CodeInternal && !errors.Is(err, tc.err) {
				t.Errorf("the INTERNAL error does not wrap the stage's: %v", e.Err)
			}
			if len(seen) > 0 || u.Count() > 0 {
				t.Errorf("after the refusal: stages %q, model requests %q", seen, u.Bodies())
			}
		})
	}
}

// TestNoConversations: a runner given no Conversations refuses a request
// that names a contextId, rather than answer it without its conversation.
func TestNoConversations(t *testing.T) {
	r := stageRunner(t, okModel(t))
	req, err := request.Decode([]byte(`{"agent":"docs","command":"plain","contextId":"c1"}`))
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Prepare(req)
	var e *apierr.Error
	if run != nil || !errors.As(err, &e) || e.Code != apierr.CodeBadRequest ||
		e.Message != `this gateway keeps no conversations, so contextId "c1" cannot be used` {
		t.Fatalf("Prepare: %v, %v; want BAD_REQUEST", run, err)
	}
}
