package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

// plannerAgent saves state in a plan, then offers a confirm whose handler
// answers with that state.
const plannerAgent = `name: planner
commands:
  - name: default
    steps:
      - id: remember
        set: {service: "billing", files: ["a.go", "b.go"]}
      - id: ask
        dependsOn: [remember]
        action:
          action: confirm
          data: {title: "Deploy {{ .state.service }}?", message: "{{ len .state.files }} files changed"}
          onAccept:
            - id: say
              reply: "deploying {{ .state.service }}: {{ join \",\" .state.files }}"
`

// scriptedModel is the upstream model every replica shares: a turn without
// a tool result asks for deploy, a turn with one answers text. The model
// keeps every request body as it arrived.
func scriptedModel(r llmtest.Request) llmtest.Reply {
	if r.Messages == nil {
		return llmtest.Error(http.StatusBadRequest, "bad json")
	}
	if len(r.Tools) == 0 {
		// A conversation: the answer says how much of it the model saw.
		return llmtest.Text(fmt.Sprintf("I saw %d messages.", len(r.Messages)))
	}
	for _, msg := range r.Messages {
		if msg.Role == "tool" {
			return llmtest.Text("Deployed, ", "as you allowed.")
		}
	}
	return llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "deploy", Arguments: "{}"})
}

// buildGateway builds this package's binary into dir, with the race
// detector when the test binary has it.
func buildGateway(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "agentgw")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// replica is one gateway process.
type replica struct {
	name   string
	base   string // http://127.0.0.1:PORT
	stderr *syncbuf.Buffer
}

// startReplica runs `agentgw serve` as a process on a free loopback port
// (the one it logs it listens on), waits until its /healthz answers 200,
// and stops it when the test ends: SIGINT, then SIGKILL if it has not
// exited 10s later. A process that did not exit cleanly, or that the race
// detector caught, fails the test.
func startReplica(t *testing.T, name, bin string, env []string, args ...string) *replica {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	pr, pw := io.Pipe()
	r := &replica{name: name, stderr: &syncbuf.Buffer{}}
	cmd.Stderr = io.MultiWriter(r.stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		exited <- err
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		var err error
		select {
		case err = <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			err = fmt.Errorf("still running 10s after SIGINT, killed: %v", <-exited)
		}
		if err != nil {
			t.Errorf("%s exited with %v; its log:\n%s", name, err, r.stderr.String())
		}
		if strings.Contains(r.stderr.String(), "DATA RACE") {
			t.Errorf("%s: the race detector reported:\n%s", name, r.stderr.String())
		}
	})
	// The JSON log line "agentgw listening" names the address.
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "agentgw listening" {
			r.base = "http://" + line.Addr
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if r.base == "" {
		t.Fatalf("%s exited before it listened: %v; its log:\n%s", name, <-exited, r.stderr.String())
	}
	for attempt := 0; ; attempt++ {
		resp, err := http.Get(r.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return r
			}
		}
		if attempt == 500 {
			t.Fatalf("%s: /healthz never answered 200 (last: %v); its log:\n%s", name, err, r.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestThreeReplicas runs three gateway processes sharing one PostgreSQL
// database (AGENTGW_STORE_URL), one action state secret
// (AGENTGW_STATE_SECRET) and one upstream model, and shows a plugin cannot
// tell which one answers: a confirm one replica sent is answered by
// another; a consent pause one replica started is resumed by another,
// with the model getting the whole conversation; and when two replicas get
// the same resume at the same moment, exactly one of them resumes it.
func TestThreeReplicas(t *testing.T) {
	storeURL := pgtest.Schema(t) // skips, or fails under AGENTGW_REQUIRE_POSTGRES=1, without a server
	bin := buildGateway(t, t.TempDir())

	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	writeFile(t, agents, "deployer.yaml", deployerAgent)
	hello, err := configs.FS.ReadFile(configs.AgentsDir + "/hello.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, agents, "hello.yaml", string(hello))
	writeFile(t, agents, "planner.yaml", plannerAgent)
	writeFile(t, agents, "notified.yaml", "name: notified\nhandoffs: [{type: NOTIFICATION}]\ncommands: [{name: default, reply: \"noted {{ .handoff.payload.data.message }}\"}]\n")
	writeFile(t, agents, "chatter.yaml", "name: chatter\ncommands:\n  - name: default\n    messageTemplates: [{role: system, template: Chat.}]\n")
	model := llmtest.New(t, llmtest.Respond(scriptedModel))

	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"AGENTGW_STORE_URL=" + storeURL,
		"AGENTGW_STATE_SECRET=one secret for every replica",
		"AGENTGW_LOG_FORMAT=json",
	}
	// The schedule below runs every second: allow it (scheduler.minInterval).
	writeFile(t, dir, "gateway.yaml", "scheduler:\n  minInterval: 1s\n")
	var reps []*replica
	for _, name := range []string{"A", "B", "C"} {
		reps = append(reps, startReplica(t, name, bin, env, "--config", filepath.Join(dir, "gateway.yaml"), "--agents", agents, "--upstream", model.URL()))
	}
	a, b, c := reps[0], reps[1], reps[2]
	for _, r := range reps {
		if !strings.Contains(r.stderr.String(), `"msg":"store: PostgreSQL"`) {
			t.Fatalf("replica %s does not use PostgreSQL; its log:\n%s", r.name, r.stderr.String())
		}
	}

	t.Run("a confirm sent by A is answered by C", func(t *testing.T) {
		tests := []struct {
			name, agent, body, title, want string
		}{
			// The hello agent's version button: C verifies the state A signed.
			{"hello", "hello", `{"contextVariables":[{"name":"userInfo","value":{"id":"ada@example.com","nickname":"Ada"}}]}`,
				"Get version", "Noted. This action has no follow-up configured."},
			// A plan's confirm: C's handler reads the state A's plan saved.
			{"plan", "planner", `{}`, "Deploy billing?", "deploying billing: a.go,b.go"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				confirm := ask(t, a.base+"/agents/"+tt.agent, tt.body).only(t)
				if confirm.Action != "confirm" || confirm.Data.Title != tt.title {
					t.Fatalf("A sent %+v", confirm)
				}
				feedback := `{"action":{"action":"confirm","state":` + string(confirm.State) + `,"accepted":true}}`
				got := ask(t, c.base+"/agents/"+tt.agent, feedback)
				if e := got.errorFrame(); e != nil || got.text != tt.want {
					t.Errorf("C answered %q, error %+v, want %q", got.text, e, tt.want)
				}
			})
		}
	})

	t.Run("a conversation continued on alternating replicas", func(t *testing.T) {
		var want []string
		for i, r := range []*replica{a, b, c, a} {
			prompt := fmt.Sprintf("turn %d on %s", i+1, r.name)
			before := len(model.Bodies())
			got := ask(t, r.base+"/agents/chatter", `{"contextId":"conv-r","contextVariables":[{"name":"userInputPrompt","value":"`+prompt+
				`"},{"name":"userInfo","value":{"id":"ada"}}]}`)
			answer := fmt.Sprintf("I saw %d messages.", 2+2*i)
			if e := got.errorFrame(); e != nil || got.text != answer {
				t.Fatalf("%s answered %q, error %+v, want %q", r.name, got.text, e, answer)
			}
			want = append(want, `{"role":"user","content":"`+prompt+`"}`)
			sent := model.Bodies()[before:]
			wantBody := `[{"role":"system","content":"Chat."},` + strings.Join(want, ",") + `]`
			var body struct{ Messages json.RawMessage }
			if len(sent) != 1 || json.Unmarshal(sent[0], &body) != nil || string(body.Messages) != wantBody {
				t.Fatalf("turn %d: the model got %s\nwant messages %s", i+1, sent, wantBody)
			}
			want = append(want, `{"role":"assistant","content":"`+answer+`"}`)
		}
		resp, err := http.DefaultClient.Do(newRequest(t, "GET", c.base+"/contexts/conv-r", "", "X-Agentgw-User", "ada"))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var ctx struct {
			Version  int64
			Owner    string
			Messages json.RawMessage
		}
		if err := json.Unmarshal(data, &ctx); err != nil || ctx.Version != 5 || ctx.Owner != "user:ada" || string(ctx.Messages) != "["+strings.Join(want, ",")+"]" {
			t.Fatalf("C's GET /contexts/conv-r = %d %s", resp.StatusCode, data)
		}
	})

	t.Run("B and C write one context version at once: one 409", func(t *testing.T) {
		statuses := make(chan string, 2)
		start := make(chan struct{})
		for _, r := range []*replica{b, c} {
			go func() {
				<-start
				req := newRequest(t, "PATCH", r.base+"/contexts/conv-r", `{"operation":"UPDATE_STATE","state":{"by":"`+r.name+`"},"version":5}`, "X-Agentgw-User", "ada")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					statuses <- err.Error()
					return
				}
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var e struct{ Content struct{ ErrorCode string } }
				_ = json.Unmarshal(data, &e)
				statuses <- fmt.Sprint(resp.StatusCode, e.Content.ErrorCode)
			}()
		}
		close(start)
		got := []string{<-statuses, <-statuses}
		if !(got[0] == "200" && got[1] == "409CONTEXT_CONFLICT" || got[1] == "200" && got[0] == "409CONTEXT_CONFLICT") {
			t.Fatalf("statuses %v, want one 200 and one 409 CONTEXT_CONFLICT", got)
		}
	})

	t.Run("hand-offs sent to any replica run once each", func(t *testing.T) {
		const n = 30
		id := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
		msg := func(i int) string {
			return `{"metadata":{"message_id":"` + id(i) + `","timestamp":"2026-01-02T03:04:05Z","protocol_version":"1.0.0",` +
				`"sender_id":"ci","recipient_id":"notified","task_id":"task-r","priority":"MEDIUM"},"context":{"workflow_state":"CI",` +
				`"previous_actions":[]},"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"build","message":"` + fmt.Sprint(i) + `"}},` +
				`"instructions":{}}`
		}
		for i := range n {
			var st handoffStatus
			if code := jsonCall(t, "POST", reps[i%3].base+"/handoffs", msg(i), &st); code != http.StatusAccepted {
				t.Fatalf("POST %d to %s = %d %+v", i, reps[i%3].name, code, st)
			}
		}
		// The same message again, to another replica: the record as it is.
		var again handoffStatus
		if code := jsonCall(t, "POST", b.base+"/handoffs", msg(0), &again); code != http.StatusOK || again.MessageID != id(0) {
			t.Fatalf("the same message to B = %d %+v", code, again)
		}
		msgs := waitTask(t, c.base, "task-r", n)
		for i, m := range msgs {
			if m.MessageID != id(i) || m.Status != "COMPLETED" || m.Attempts != 1 || m.Result.Text != fmt.Sprint("noted ", i) {
				t.Errorf("message %d: %+v", i, m)
			}
		}
	})

	t.Run("a schedule every second runs once per time on three replicas", func(t *testing.T) {
		var made scheduleView
		if code := jsonCall(t, "POST", a.base+"/schedules", `{"name":"pulse","every":"1s","agent":"chatter","prompt":"pulse"}`, &made); code != http.StatusCreated {
			t.Fatalf("POST /schedules on A = %d %+v", code, made)
		}
		sc := waitRuns(t, b.base, made.ID, 4)
		if code := jsonCall(t, "PATCH", c.base+"/schedules/"+made.ID, `{"enabled":false}`, nil); code != http.StatusOK {
			t.Fatalf("disabling on C = %d", code)
		}
		sc = waitRuns(t, c.base, made.ID, int(sc.RunCount))
		dues := map[time.Time]bool{}
		ran := 0
		for _, r := range sc.Runs {
			if r.Status == "SKIPPED" { // due while the one before still ran (a slow machine): not run, not counted
				continue
			}
			ran++
			if r.Status != "SUCCESS" || r.Result.Text != "I saw 2 messages." || dues[r.Due] {
				t.Errorf("run %+v (due before: %v)", r, dues[r.Due])
			}
			dues[r.Due] = true
		}
		if int64(ran) != sc.RunCount {
			t.Errorf("%d runs recorded, runCount %d: a time ran twice or a run was lost", ran, sc.RunCount)
		}
	})

	// pause asks A to deploy and returns the consent's feedback.
	pause := func(t *testing.T, question string) string {
		t.Helper()
		consent := ask(t, a.base+"/agents/deployer", `{"contextVariables":[{"name":"userInputPrompt","value":"`+question+`"}]}`).only(t)
		if consent.Action != "confirm" || !strings.HasPrefix(consent.Data.Message, "Deploy the service?") {
			t.Fatalf("A sent %s %+v, want the consent", consent.State, consent.Data)
		}
		return `{"action":{"action":"confirm","state":` + string(consent.State) + `,"accepted":true}}`
	}
	const resumedText = "\n> running deploy {}\nDeployed, as you allowed."

	t.Run("a pause A started is resumed by B", func(t *testing.T) {
		feedback := pause(t, "Ship the billing service.")
		before := len(model.Bodies())
		got := ask(t, b.base+"/agents/deployer", feedback)
		if e := got.errorFrame(); e != nil || got.text != resumedText {
			t.Fatalf("B answered %q, error %+v", got.text, e)
		}
		reqs := model.Bodies()[before:]
		if len(reqs) != 1 {
			t.Fatalf("the model got %d requests for the resumed turn, want 1", len(reqs))
		}
		// The whole conversation, as A began it: system prompt, question,
		// the model's tool call and the tool's result.
		// The tool's executionTime (milliseconds) is the one value that varies.
		body := executionTime.ReplaceAll(reqs[0], []byte(`\"executionTime\":0`))
		golden.Check(t, "testdata/replicas/resumed_request.json", indentJSON(t, body))
	})

	t.Run("B and C get the same resume at once: exactly one resumes it", func(t *testing.T) {
		feedback := pause(t, "Ship the search service.")
		before := len(model.Bodies())
		type result struct {
			replica string
			status  int
			body    []byte
			err     error
		}
		start := make(chan struct{})
		results := make(chan result, 2)
		for _, r := range []*replica{b, c} {
			go func() {
				<-start
				res := result{replica: r.name}
				resp, err := http.Post(r.base+"/agents/deployer", "application/json", strings.NewReader(feedback))
				if err != nil {
					res.err = err
					results <- res
					return
				}
				res.status = resp.StatusCode
				res.body, res.err = io.ReadAll(resp.Body)
				resp.Body.Close()
				results <- res
			}()
		}
		close(start)
		var resumed, refused []result
		for range 2 {
			res := <-results
			if res.err != nil {
				t.Fatalf("%s: %v", res.replica, res.err)
			}
			if res.status == http.StatusOK {
				resumed = append(resumed, res)
			} else {
				refused = append(refused, res)
			}
		}
		if len(resumed) != 1 || len(refused) != 1 {
			t.Fatalf("%d replicas resumed and %d refused, want 1 and 1: %+v %+v", len(resumed), len(refused), resumed, refused)
		}
		var events []streamEvent
		rd := sse.NewReader(bytes.NewReader(resumed[0].body))
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s's stream: %v\n%s", resumed[0].replica, err, resumed[0].body)
			}
			events = append(events, streamEvent{Name: ev.Name, Data: string(ev.Data)})
		}
		if got := streamText(t, events); got != resumedText || events[len(events)-1].Data != "[DONE]" {
			t.Errorf("%s resumed with %q, want %q and the terminator:\n%s", resumed[0].replica, got, resumedText, resumed[0].body)
		}
		// The other is refused before any stream, in the protocol's error shape.
		r := refused[0]
		var refusal struct {
			Type    string `json:"type"`
			Content struct {
				ErrorCode string `json:"errorCode"`
				Message   string `json:"message"`
			} `json:"content"`
		}
		const consumed = "the run this answers is no longer waiting: it was answered already, or it expired"
		if err := json.Unmarshal(r.body, &refusal); err != nil || r.status != http.StatusBadRequest || refusal.Type != "ERROR_RESPONSE" ||
			refusal.Content.ErrorCode != "STATE_INVALID" || refusal.Content.Message != consumed {
			t.Errorf("%s refused with %d %s, want 400 STATE_INVALID %q", r.replica, r.status, r.body, consumed)
		}
		reqs := model.Bodies()[before:]
		if len(reqs) != 1 || !bytes.Contains(reqs[0], []byte(`"role":"tool"`)) || !bytes.Contains(reqs[0], []byte("Ship the search service.")) {
			t.Errorf("the model got %d requests for the resumed turn, want 1:\n%s", len(reqs), bytes.Join(reqs, []byte("\n")))
		}
	})
}

// newRequest is a request with a JSON body (when not empty) and headers.
func newRequest(t *testing.T, method, url, body string, header ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// executionTime is a tool result's duration, as it appears escaped in the
// tool message's content.
var executionTime = regexp.MustCompile(`\\"executionTime\\":[0-9]+`)

// indentJSON is data indented, for a golden file a reviewer can read.
func indentJSON(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	out.WriteByte('\n')
	return out.Bytes()
}
