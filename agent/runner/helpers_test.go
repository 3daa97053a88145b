package runner

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/gitrepo/gitstep"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
	"github.com/agentgw/agentgw/tools/toolload"
	"github.com/agentgw/agentgw/tools/toolstep"
)

// archive is a txtar-like golden file: "-- name --" lines start sections.
type archive struct {
	names    []string
	sections map[string]string
}

func parseArchive(data string) archive {
	a := archive{sections: map[string]string{}}
	cur := ""
	for _, line := range strings.SplitAfter(data, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			cur = t[3 : len(t)-3]
			a.names = append(a.names, cur)
			a.sections[cur] = ""
			continue
		}
		if cur != "" {
			a.sections[cur] += line
		}
	}
	return a
}

func (a archive) format() string {
	var b strings.Builder
	for _, n := range a.names {
		b.WriteString("-- " + n + " --\n")
		b.WriteString(a.sections[n])
	}
	return b.String()
}

func (a *archive) set(name, content string) {
	if _, ok := a.sections[name]; !ok {
		a.names = append(a.names, name)
	}
	if content != "" && !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	a.sections[name] = content
}

// hiModel is a model that answers every request "Hi there" in two chunks.
func hiModel(t *testing.T) *llmtest.Model {
	return llmtest.New(t, llmtest.Repeat(llmtest.Text("Hi", " there")))
}

// okModel is a model that answers every request "ok".
func okModel(t *testing.T) *llmtest.Model {
	return llmtest.New(t, llmtest.Repeat(llmtest.Text("ok")))
}

// testRunner builds a runner over the agents in yaml, with an upstream
// when up is not nil, logging into logs.
func testRunner(t *testing.T, yaml string, up *llmtest.Model, cfg RunnerConfig) (*Runner, *bytes.Buffer) {
	t.Helper()
	agents, diags := parseAll("test.yaml", []byte(yaml))
	if diags.Errors() > 0 {
		t.Fatalf("test agents do not load:\n%s", diags)
	}
	if up != nil {
		c, err := llm.New(llm.Config{BaseURL: up.URL(), FirstByteTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		cfg.LLM = c
	}
	var logs bytes.Buffer
	cfg.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if cfg.Signer == nil {
		cfg.Signer = actions.NewSigner([]byte("secret"), time.Hour)
	}
	return NewRunner(program.NewRegistry(agents), cfg), &logs
}

// runRequest decodes body, prepares and executes it into a recorder.
func runRequest(t *testing.T, r *Runner, body string) (*emit.Recorder, error) {
	t.Helper()
	req, err := request.Decode([]byte(body))
	if err != nil {
		return nil, err
	}
	run, err := r.Prepare(req)
	if err != nil {
		return nil, err
	}
	rec := &emit.Recorder{}
	run.Execute(t.Context(), rec)
	return rec, nil
}

// writeTemp writes data to a file named name in a new temporary directory
// and returns its path.
func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// testKinds are the step kinds the gateway registers: the built-ins, git
// (without repositories) and tool.
func testKinds() *stepkind.Registry {
	k := program.NewKinds()
	for _, kind := range []stepkind.Kind{gitstep.New(nil), toolstep.Kind{}, handoffstep.New(nil)} {
		if err := k.Register(kind); err != nil {
			panic(err)
		}
	}
	return k
}

// parseAll is Parse with every step kind the gateway registers.
func parseAll(file string, data []byte) ([]*program.Agent, agent.Diagnostics) {
	return program.ParseWith(program.LoadOptions{Kinds: testKinds(), Tools: toolload.Default()}, file, data)
}

// loadAll is Load with every step kind the gateway registers.
func loadAll(paths ...string) ([]*program.Agent, agent.Diagnostics) {
	return program.LoadWith(program.LoadOptions{Kinds: testKinds(), Tools: toolload.Default()}, paths...)
}

// loadFSAll is LoadFS with every step kind the gateway registers.
func loadFSAll(fsys fs.FS, root string) ([]*program.Agent, agent.Diagnostics) {
	return program.LoadFSWith(program.LoadOptions{Kinds: testKinds(), Tools: toolload.Default()}, fsys, root)
}

// streamFrames runs the request body on r and returns the SSE frames a
// plugin would get, with a fixed id, model and time so they can be golden.
func streamFrames(t *testing.T, r *Runner, body, model, requestID string) []byte {
	t.Helper()
	req, err := request.Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	run.Execute(t.Context(), emit.NewSSEEmitter(sse.NewWriter(&out, sse.Options{ID: "chatcmpl-42", Model: model, Created: 1700000000}), requestID))
	return out.Bytes()
}
