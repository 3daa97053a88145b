package collab

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// TestAskLocal: a question to an agent of this gateway runs its command
// through the runner with the question as the user's input; its model's
// tokens come back as one PROGRESS per line, in order, then the RESPONSE
// with the whole text. The exchange's JSON has the seed's shape.
func TestAskLocal(t *testing.T) {
	m := llmtest.New(t, llmtest.Repeat(llmtest.Text("Looking at it.\nThe answer", " is 42.\n\n", "Done")))
	cfg := Config{}
	fixedIDs(&cfg)
	a, _ := newTestAsker(t, m, cfg)
	var seen []string
	resp, msgs, err := a.Ask(t.Context(), "lead", "helper", "What is 6 times 7?", Options{OnProgress: func(p Message) { seen = append(seen, p.Text()) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Looking at it.", "The answer is 42.", "Done"}
	if !slices.Equal(seen, want) || !slices.Equal(texts(msgs), want) {
		t.Errorf("progress %q (exchange %q), want %q", seen, texts(msgs), want)
	}
	if wantTypes := []Type{TypeRequest, TypeProgress, TypeProgress, TypeProgress, TypeResponse}; !slices.Equal(types(msgs), wantTypes) {
		t.Errorf("exchange %v, want %v", types(msgs), wantTypes)
	}
	c, ok := resp.Response()
	if !ok || c.Status != StatusSuccess || c.Result != "Looking at it.\nThe answer is 42.\n\nDone" {
		t.Errorf("response %+v", resp)
	}
	if resp.FromAgent != "helper" || resp.ToAgent != "lead" {
		t.Errorf("response from %q to %q", resp.FromAgent, resp.ToAgent)
	}
	if got := lastUser(m.Requests()[0]); got != "What is 6 times 7?" {
		t.Errorf("the model was asked %q", got)
	}
	data, err := json.MarshalIndent(msgs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/exchange_local.json", append(data, '\n'))
}

// TestAskCommand: Options.Command picks the asked agent's command.
func TestAskCommand(t *testing.T) {
	a, _ := newTestAsker(t, nil, Config{})
	resp, msgs, err := a.Ask(t.Context(), "lead", "helper", "ping", Options{Command: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != "echo: ping" || !slices.Equal(texts(msgs), []string{"echo: ping"}) {
		t.Errorf("response %q, progress %q", resp.Text(), texts(msgs))
	}
	if req := msgs[0].Content.(RequestContent); req.Command != "echo" || req.Question != "ping" {
		t.Errorf("request content %+v", req)
	}
}

// TestAskActions: the actions the asked command sends are listed in the
// response.
func TestAskActions(t *testing.T) {
	a, _ := newTestAsker(t, nil, Config{})
	resp, _, err := a.Ask(t.Context(), "lead", "helper", "the release", Options{Command: "offer"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := resp.Response()
	if c.Status != StatusSuccess || len(c.Actions) != 1 || c.Actions[0].Confirm == nil || c.Actions[0].Confirm.Message != "Do the release?" {
		t.Fatalf("response %+v", c)
	}
}

// blockingModel answers with first (when not empty) and then holds the
// stream open until its request's context ends (Model.Ended sees it).
func blockingModel(t *testing.T, first string) *llmtest.Model {
	var events []llmtest.Event
	if first != "" {
		events = append(events, llmtest.Data(llmtest.TextChunk(first)))
	}
	return llmtest.New(t, llmtest.Repeat(llmtest.Stream(append(events, llmtest.Stall())...)))
}

// TestAskTimeout: when the timeout passes first, a CANCEL ends the
// exchange, Ask fails with ErrTimeout, and the asked agent's run stops:
// its upstream model request ends.
func TestAskTimeout(t *testing.T) {
	m := blockingModel(t, "")
	a, _ := newTestAsker(t, m, Config{})
	resp, msgs, err := a.Ask(t.Context(), "lead", "helper", "slow?", Options{Timeout: 20 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) || errors.Is(err, ErrCanceled) {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
	if resp.ID != "" {
		t.Errorf("a response %+v", resp)
	}
	last := msgs[len(msgs)-1]
	if c, ok := last.Content.(CancelContent); last.Type != TypeCancel || !ok || c.Reason != ReasonTimeout ||
		last.FromAgent != "lead" || last.ToAgent != "helper" || last.Metadata["request_id"] != msgs[0].ID {
		t.Errorf("last message %+v, want a timeout CANCEL from lead to helper", last)
	}
	if err.Error() != `agent "helper" did not answer within 20ms: no response in time` {
		t.Errorf("error %q", err)
	}
	m.Ended(t) // the model's request ended: the run stopped
}

// TestAskCallerCancelled: when the caller goes away (the user
// disconnected), a CANCEL ends the exchange, Ask fails with ErrCanceled,
// and the asked agent's upstream request ends.
func TestAskCallerCancelled(t *testing.T) {
	m := blockingModel(t, "working on it\n")
	a, _ := newTestAsker(t, m, Config{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, msgs, err := a.Ask(ctx, "lead", "helper", "slow?", Options{OnProgress: func(Message) { cancel() }})
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("err %v, want ErrCanceled", err)
	}
	if want := []Type{TypeRequest, TypeProgress, TypeCancel}; !slices.Equal(types(msgs), want) {
		t.Fatalf("exchange %v, want %v", types(msgs), want)
	}
	if c := msgs[2].Content.(CancelContent); c.Reason != ReasonCanceled {
		t.Errorf("cancel %+v", c)
	}
	m.Ended(t)
}

// TestAskCallerDeadline: the caller's own deadline (a step's or a tool's
// timeout) passing first is a timeout too.
func TestAskCallerDeadline(t *testing.T) {
	m := blockingModel(t, "")
	a, _ := newTestAsker(t, m, Config{})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, msgs, err := a.Ask(ctx, "lead", "helper", "slow?", Options{Timeout: time.Hour})
	if !errors.Is(err, ErrTimeout) || err.Error() != `agent "helper" did not answer before the caller's deadline: no response in time` {
		t.Fatalf("err %v", err)
	}
	if c := msgs[len(msgs)-1].Content.(CancelContent); c.Reason != ReasonTimeout {
		t.Errorf("cancel %+v", c)
	}
	m.Ended(t)
}

// TestAskErrorResponse: what the asked agent's run reports as an error
// frame, or the runner refuses, is an error RESPONSE, not an error of Ask.
func TestAskErrorResponse(t *testing.T) {
	m := llmtest.New(t, llmtest.Repeat(llmtest.Error(http.StatusBadRequest, "no such model")))
	a, _ := newTestAsker(t, m, Config{})
	for _, tt := range []struct {
		to, command, code string
	}{
		{"helper", "", "UPSTREAM_ERROR"},
		{"nobody", "", "AGENT_NOT_FOUND"},
		{"helper", "nosuch", "COMMAND_NOT_FOUND"},
	} {
		t.Run(tt.to+"/"+tt.command, func(t *testing.T) {
			resp, msgs, err := a.Ask(t.Context(), "lead", tt.to, "hi", Options{Command: tt.command})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := resp.Response()
			if !ok || c.Status != StatusError || c.Error == nil || c.Error.Code != tt.code || c.Error.Message == "" {
				t.Fatalf("response %+v, want an error response %s", c, tt.code)
			}
			if want := []Type{TypeRequest, TypeResponse}; !slices.Equal(types(msgs), want) {
				t.Errorf("exchange %v", types(msgs))
			}
		})
	}
}

// TestAskRefused: asking oneself, or deeper than the limit, sends nothing.
func TestAskRefused(t *testing.T) {
	a, _ := newTestAsker(t, nil, Config{MaxDepth: 2})
	deep := withAsked(withAsked(t.Context(), "helper"), "lead")
	for _, tt := range []struct {
		name     string
		ctx      context.Context
		from, to string
		want     string
	}{
		{"self", t.Context(), "helper", "helper", `agent "helper" may not ask itself: the ask was refused`},
		{"nobody", t.Context(), "lead", "", `ask: no agent named to ask: the ask was refused`},
		{"deep", deep, "lead", "helper", `asking agent "helper" would make the chain of asks helper → lead → helper deeper than 2: the ask was refused`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, msgs, err := a.Ask(tt.ctx, tt.from, tt.to, "hi", Options{Command: "echo"})
			if !errors.Is(err, ErrRefused) || err.Error() != tt.want || msgs != nil {
				t.Errorf("err %v, exchange %v; want %q", err, msgs, tt.want)
			}
		})
	}
	// One less deep is allowed.
	if _, _, err := a.Ask(withAsked(t.Context(), "x"), "lead", "helper", "hi", Options{Command: "echo"}); err != nil {
		t.Errorf("one ask deep: %v", err)
	}
}

// TestAskNoRunner: an ask to a local agent from no run, by an Asker
// without Config.Local, answers with an error, and does not hang.
func TestAskNoRunner(t *testing.T) {
	a := New(Config{})
	resp, _, err := a.Ask(t.Context(), "lead", "helper", "hi", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := resp.Response(); c.Status != StatusError || c.Error.Code != "INTERNAL" {
		t.Errorf("response %+v", c)
	}
}
