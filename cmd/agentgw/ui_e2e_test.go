package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/agentgw/agentgw/echomodel"
	"github.com/agentgw/agentgw/sse"
)

var updateScreenshot = flag.Bool("screenshot", false, "rewrite docs/playground.png (TestPlaygroundScreenshot)")

// playgroundToken is the gateway token the playground tests' user types.
const playgroundToken = "pg-secret-token"

// exchange is one request the browser sent through the recorder, and the
// answer it got.
type exchange struct {
	Method, Path string
	Header       http.Header
	Body         string
	resp         *bytes.Buffer
}

// recorder is a reverse proxy in front of the gateway that keeps every
// request the page sends and every answer, byte for byte.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*exchange
}

func newRecorder(t *testing.T, gateway string) *recorder {
	t.Helper()
	target, err := url.Parse(gateway)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	proxy.ModifyResponse = func(resp *http.Response) error {
		if ex, ok := resp.Request.Context().Value(exchangeKey{}).(*exchange); ok {
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(resp.Body, lockedWriter{&r.mu, ex.resp}), resp.Body}
		}
		return nil
	}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		ex := &exchange{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: string(body), resp: &bytes.Buffer{}}
		r.mu.Lock()
		r.seen = append(r.seen, ex)
		r.mu.Unlock()
		proxy.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), exchangeKey{}, ex)))
	}))
	t.Cleanup(r.Close)
	return r
}

type exchangeKey struct{}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// posts returns the POSTs so far, with their answers as received.
func (r *recorder) posts() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []exchange
	for _, ex := range r.seen {
		if ex.Method == http.MethodPost && !strings.HasSuffix(ex.Path, "/prompt") {
			c := *ex
			c.resp = bytes.NewBuffer(append([]byte(nil), ex.resp.Bytes()...))
			out = append(out, c)
		}
	}
	return out
}

// mustCompact is data as json.Marshal writes a decoded copy of it.
func mustCompact(t *testing.T, data []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}

// previews returns the prompt previews the page asked for, in order.
func (r *recorder) previews() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []exchange
	for _, ex := range r.seen {
		if ex.Method == http.MethodPost && strings.HasSuffix(ex.Path, "/prompt") {
			c := *ex
			c.resp = bytes.NewBuffer(append([]byte(nil), ex.resp.Bytes()...))
			out = append(out, c)
		}
	}
	return out
}

// events reads an answer's SSE events.
func (ex exchange) events(t *testing.T) []streamEvent {
	t.Helper()
	var out []streamEvent
	rd := sse.NewReader(bytes.NewReader(ex.resp.Bytes()))
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading the answer to %s: %v", ex.Body, err)
		}
		out = append(out, streamEvent{Name: ev.Name, Data: string(ev.Data)})
	}
}

// rawState is the "state" of the first action event of an answer, as sent.
func (ex exchange) rawState(t *testing.T) string {
	t.Helper()
	for _, ev := range ex.events(t) {
		if ev.Name == "copilot_action" {
			m := regexp.MustCompile(`"state":("(?:[^"\\]|\\.)*")`).FindStringSubmatch(ev.Data)
			if m == nil {
				t.Fatalf("an action without a string state: %s", ev.Data)
			}
			return m[1]
		}
	}
	t.Fatalf("no action in the answer to %s", ex.Body)
	return ""
}

// chromium returns the browser's path, skipping the test when there is
// none unless AGENTGW_REQUIRE_CHROMIUM is set (CI sets it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("AGENTGW_REQUIRE_CHROMIUM") != "" {
		t.Fatal("AGENTGW_REQUIRE_CHROMIUM is set but no chromium is installed (apt-get install -y chromium)")
	}
	t.Skip("no chromium: the playground's browser tests need it (apt-get install -y chromium)")
	return ""
}

// browser starts a headless Chromium with a fresh profile and no network
// beyond loopback, for the test's life.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	// A bound on the whole session, so that a broken page fails the test
	// instead of hanging it; nothing is asserted on time.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	// What the page throws or logs goes to the test's log.
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		switch ev := ev.(type) {
		case *cdpruntime.EventExceptionThrown:
			t.Logf("page exception: %s %v", ev.ExceptionDetails.Text, ev.ExceptionDetails.Exception)
		case *cdpruntime.EventConsoleAPICalled:
			for _, a := range ev.Args {
				t.Logf("page console.%s: %s %s", ev.Type, a.Value, a.Description)
			}
		}
	}))
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancel()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return bctx
}

// drive runs the steps in the page, failing the test at the first error.
func drive(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// read runs one action in the page and returns its value.
func read[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// pick chooses value in the select sel as a user does (a change event).
func pick(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q;
		s.dispatchEvent(new Event('change')) })()`, sel, value))
}

// setText replaces the text of a field as typing does (an input event).
func setText(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const f = document.querySelector(%q); f.value = %q;
		f.dispatchEvent(new Event('input', {bubbles: true})) })()`, sel, value))
}

// turnDone waits for the nth answer (from 1) to have finished.
func turnDone(n int) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#transcript article.turn:nth-of-type(%d).done`, n)))
}

func turn(n int, sel string) string {
	return fmt.Sprintf(`#transcript article.turn:nth-of-type(%d) %s`, n, sel)
}

// startPlayground runs the gateway (the embedded example agents, the
// built-in echo model, repository proj for the repo agent, inbound auth)
// behind a recorder, and opens the playground in a browser.
func startPlayground(t *testing.T) (context.Context, *recorder) {
	t.Helper()
	cfg, _ := gitConfig(t, echomodel.URL, newOrigin(t))
	gw := startGateway(t, cfg, map[string]string{"AGENTGW_TOKENS": playgroundToken})
	rec := newRecorder(t, gw)
	ctx := browser(t)
	drive(t, ctx, chromedp.Navigate(rec.URL+"/ui"), chromedp.WaitVisible(chromedp.CSS(`#status.bad`)))
	return ctx, rec
}

// signIn types the token, as a user does, and waits for the agents.
func signIn(t *testing.T, ctx context.Context) {
	t.Helper()
	drive(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#token`), playgroundToken),
		chromedp.Click(chromedp.CSS(`#token-save`)),
		chromedp.WaitReady(chromedp.CSS(`#agent option[value="hello"]`)),
		chromedp.WaitReady(chromedp.CSS(`#command option[value="default"]`)))
}

// TestPlaygroundEndToEnd drives the page in headless Chromium against a
// loopback gateway: the token, the hello agent and its command button, a
// lazy tree of the repo agent expanded, the fixer's frontend tool call
// answered from the page and its consent prompt dismissed, and errors
// before and inside the stream. Every request the page sent is checked
// byte for byte, actions' states echoed exactly as they came.
func TestPlaygroundEndToEnd(t *testing.T) {
	ctx, rec := startPlayground(t)

	status := read(t, ctx, chromedp.Text(chromedp.CSS(`#status`)))
	if status != "This gateway needs a token: enter it above." {
		t.Fatalf("without a token the page says %q", status)
	}
	signIn(t, ctx)

	// hello: its command collects userInfo, ticked for the user; what the
	// user typed stays in the requests to every agent after.
	drive(t, ctx, pick(`#agent`, "hello"), chromedp.WaitVisible(chromedp.CSS(`.var-form[data-var="userInfo"].included`)),
		setText(`#user-nickname`, "ada"), chromedp.Click(chromedp.CSS(`#send`)), turnDone(1))
	answer := read(t, ctx, chromedp.InnerHTML(chromedp.CSS(turn(1, ".answer"))))
	if answer != "<p>Hello, ada!\nWelcome to agent hello!</p>" {
		t.Errorf("hello's answer rendered as %q", answer)
	}
	posts := rec.posts()
	wantFirst := `{"command":"default","contextVariables":[{"name":"userInfo","value":{"id":"","name":"","nickname":"ada"}}]}`
	if len(posts) != 1 || posts[0].Path != "/agents/hello" || posts[0].Body != wantFirst {
		t.Fatalf("the page sent %+v, want one POST /agents/hello %s", posts, wantFirst)
	}
	if got := posts[0].Header.Get("Authorization"); got != "Bearer "+playgroundToken {
		t.Errorf("Authorization %q, want the token typed", got)
	}
	shown := read(t, ctx, chromedp.TextContent(chromedp.CSS(turn(1, ".request pre.body"))))
	if shown != wantFirst {
		t.Errorf("the page shows the request as %q, sent %q", shown, wantFirst)
	}

	// Its "Get version" button names a command: a normal request for it,
	// with the same context and no prompt.
	drive(t, ctx, chromedp.Click(chromedp.CSS(turn(1, ".confirm-accept"))), turnDone(2))
	answer = read(t, ctx, chromedp.InnerHTML(chromedp.CSS(turn(2, ".answer"))))
	if answer != "<p>The current version is v1.0.0</p>" {
		t.Errorf("the version answer rendered as %q", answer)
	}
	if got, want := rec.posts()[1].Body, `{"command":"version","contextVariables":[{"name":"userInfo","value":{"id":"","name":"","nickname":"ada"}}]}`; got != want {
		t.Errorf("the button sent %s, want %s", got, want)
	}

	t.Run("tree", func(t *testing.T) { playgroundTree(t, ctx, rec) })
	t.Run("tool call", func(t *testing.T) { playgroundToolCall(t, ctx, rec) })
	t.Run("consent", func(t *testing.T) { playgroundConsent(t, ctx, rec) })
	t.Run("errors", func(t *testing.T) { playgroundErrors(t, ctx, rec) })
}

// clearTranscript empties the transcript so that the next answer is the first.
func clearTranscript(t *testing.T, ctx context.Context) {
	t.Helper()
	drive(t, ctx, chromedp.Click(chromedp.CSS(`#clear`)))
}

// playgroundTree: the repo agent's tree; expanding a folder sends tree
// feedback with the tree's state as it came, and the children the answer
// brings are merged under the folder.
func playgroundTree(t *testing.T, ctx context.Context, rec *recorder) {
	clearTranscript(t, ctx)
	before := len(rec.posts())
	drive(t, ctx, pick(`#agent`, "repo"), chromedp.WaitReady(chromedp.CSS(`#command option[value="default"]`)),
		setText(`#prompt`, "proj"), chromedp.Click(chromedp.CSS(`#send`)), turnDone(1),
		chromedp.WaitVisible(chromedp.CSS(turn(1, `.tree li[data-node-id="internal"] .toggle`))))
	first := rec.posts()[before]
	if want := `{"command":"default","contextVariables":[{"name":"userInputPrompt","value":"proj"},{"name":"userInfo","value":{"id":"","name":"","nickname":"ada"}}]}`; first.Body != want {
		t.Fatalf("the repo request was %s, want %s", first.Body, want)
	}
	nodes := read(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.tree li')].map(li => li.dataset.nodeId)`))
	if got := strings.Join(nodes, " "); got != "README.md cmd docs go.mod internal" && got != "cmd docs internal README.md go.mod" {
		t.Errorf("the tree shows %q", got)
	}

	drive(t, ctx, chromedp.Click(chromedp.CSS(turn(1, `.tree li[data-node-id="internal"] .toggle`))), turnDone(2),
		chromedp.WaitVisible(chromedp.CSS(turn(1, `.tree li[data-node-id="internal"] li[data-node-id="internal/calc"]`))))
	expand := rec.posts()[before+1]
	want := `{"command":"default","contextVariables":[{"name":"userInputPrompt","value":"proj"},{"name":"userInfo","value":{"id":"","name":"","nickname":"ada"}}],"action":{"action":"tree","state":` +
		first.rawState(t) + `,"treeId":"files","nodeId":"internal","nodeAction":"expand","node":` +
		regexp.MustCompile(`\{"id":"internal",[^{}]*\}`).FindString(first.resp.String()) + `}}`
	if expand.Body != want {
		t.Errorf("the expand sent\n%s\nwant\n%s", expand.Body, want)
	}
	note := read(t, ctx, chromedp.Text(chromedp.CSS(turn(2, ".note"))))
	if note != "Added 1 node to tree files above." {
		t.Errorf("the expand's answer says %q", note)
	}
}

// playgroundToolCall: the fixer asks the page to run read_file (the echo
// model calls it when told to); the user writes the result, and the page
// sends it back as toolResults on the same request.
func playgroundToolCall(t *testing.T, ctx context.Context, rec *recorder) {
	clearTranscript(t, ctx)
	before := len(rec.posts())
	drive(t, ctx, pick(`#agent`, "fixer"), chromedp.WaitReady(chromedp.CSS(`#command option[value="default"]`)),
		setText(`#prompt`, `call read_file {"path":"calc.go"}`), chromedp.Click(chromedp.CSS(`#send`)), turnDone(1),
		chromedp.WaitVisible(chromedp.CSS(turn(1, ".toolcall .tool-result"))))
	q := read(t, ctx, chromedp.Text(chromedp.CSS(turn(1, ".toolcall .consent-q"))))
	drive(t, ctx, setText(turn(1, ".toolcall .tool-result"), "package calc // from the page"),
		chromedp.Click(chromedp.CSS(turn(1, ".tool-send"))), turnDone(2))
	if q != "Let the agent read this file?" {
		t.Errorf("the tool call asks %q", q)
	}
	posts := rec.posts()
	callID := regexp.MustCompile(`"callId":"([^"]+)"`).FindStringSubmatch(posts[before].resp.String())
	if callID == nil {
		t.Fatalf("no tool call in %s", posts[before].resp)
	}
	prompt := `{"command":"default","contextVariables":[{"name":"userInputPrompt","value":"call read_file {\"path\":\"calc.go\"}"},{"name":"userInfo","value":{"id":"","name":"","nickname":"ada"}}]`
	want := prompt + `,"toolResults":[{"callId":"` + callID[1] + `","status":"SUCCESS","result":{"content":"package calc // from the page"},"executionTime":0}]}`
	if got := posts[before+1].Body; got != want {
		t.Errorf("the results sent\n%s\nwant\n%s", got, want)
	}
	// Before the run, the page asked for the prompt of the same request
	// and shows it: the upstream body, tools included; the results sent
	// after resume a run and have no prompt of their own to preview.
	previews := rec.previews()
	if len(previews) == 0 || previews[len(previews)-1].Path != "/agents/fixer/prompt" || previews[len(previews)-1].Body != prompt+"}" {
		t.Fatalf("the page asked for no preview of %s: %+v", prompt, previews)
	}
	var upstream struct {
		Model    string `json:"model"`
		Messages []struct{ Role, Content string }
		Tools    []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(previews[len(previews)-1].resp.Bytes(), &upstream); err != nil || len(upstream.Messages) == 0 ||
		upstream.Messages[len(upstream.Messages)-1].Content != `call read_file {"path":"calc.go"}` || len(upstream.Tools) == 0 {
		t.Errorf("the preview answered %s (%v)", previews[len(previews)-1].resp, err)
	}
	var shownPrompt any
	if err := json.Unmarshal([]byte(read(t, ctx, chromedp.TextContent(chromedp.CSS(turn(1, ".prompt pre"))))), &shownPrompt); err != nil {
		t.Errorf("the page does not show the prompt as JSON: %v", err)
	} else if want, _ := json.Marshal(shownPrompt); !bytes.Equal(mustCompact(t, previews[len(previews)-1].resp.Bytes()), want) {
		t.Errorf("the page shows the prompt as %s, the gateway answered %s", want, previews[len(previews)-1].resp)
	}
	drive(t, ctx, chromedp.WaitVisible(chromedp.CSS(turn(2, ".answer p"))))
	answer := read(t, ctx, chromedp.Text(chromedp.CSS(turn(2, ".answer"))))
	if !strings.HasPrefix(answer, "The tool said: ") || !strings.Contains(answer, `"content":"package calc // from the page"`) {
		t.Errorf("after the tool result the answer is %q", answer)
	}
}

// playgroundConsent: a USER_CONSENT tool's prompt is a confirm; dismissing
// it sends confirm feedback, its state echoed as it came, and the model
// hears that the user declined.
func playgroundConsent(t *testing.T, ctx context.Context, rec *recorder) {
	clearTranscript(t, ctx)
	before := len(rec.posts())
	drive(t, ctx, setText(`#prompt`, `call run_tests {}`), chromedp.Click(chromedp.CSS(`#send`)), turnDone(1),
		chromedp.WaitVisible(chromedp.CSS(turn(1, ".confirm.consent .confirm-dismiss"))),
		chromedp.Click(chromedp.CSS(turn(1, ".confirm.consent .confirm-dismiss"))), turnDone(2))
	posts := rec.posts()
	want := `{"command":"default","contextVariables":[{"name":"userInputPrompt","value":"call run_tests {}"},{"name":"userInfo","value":{"id":"","name":"","nickname":"ada"}}],` +
		`"action":{"action":"confirm","state":` + posts[before].rawState(t) + `,"accepted":false}}`
	if got := posts[before+1].Body; got != want {
		t.Errorf("dismissing sent\n%s\nwant\n%s", got, want)
	}
	drive(t, ctx, chromedp.WaitVisible(chromedp.CSS(turn(2, ".answer p"))))
	answer := read(t, ctx, chromedp.Text(chromedp.CSS(turn(2, ".answer"))))
	chosen := read(t, ctx, chromedp.Text(chromedp.CSS(turn(1, ".confirm .chosen"))))
	if !strings.HasPrefix(answer, "The tool said: ") || chosen != "dismissed" {
		t.Errorf("after dismissing, the answer is %q and the box says %q", answer, chosen)
	}
}

// playgroundErrors: an ERROR_RESPONSE before the stream and a copilot_error
// inside it show their code, message and suggested action.
func playgroundErrors(t *testing.T, ctx context.Context, rec *recorder) {
	clearTranscript(t, ctx)
	// coder's explain requires activeEditor: left out, the gateway refuses.
	drive(t, ctx, pick(`#agent`, "coder"), chromedp.WaitReady(chromedp.CSS(`#command option[value="explain"]`)),
		pick(`#command`, "explain"), chromedp.Evaluate[chromedp.Void](`(() => { const b = document.querySelector('.var-form[data-var="activeEditor"] .include');
			b.checked = false; b.dispatchEvent(new Event('change')); })()`),
		setText(`#prompt`, ""), chromedp.Click(chromedp.CSS(`#send`)), turnDone(1))
	code := read(t, ctx, chromedp.Text(chromedp.CSS(turn(1, ".error strong"))))
	suggested := read(t, ctx, chromedp.Evaluate[string](`document.querySelector('#transcript article .error .suggested')?.textContent ?? ''`))
	if code != "INVALID_CONTEXT_VARIABLE (HTTP 422)" {
		t.Errorf("the refusal shows %q", code)
	}
	posts := rec.posts()
	last := posts[len(posts)-1]
	if !strings.Contains(last.resp.String(), `"suggestedAction":`) {
		t.Logf("the 422 carries no suggested action: %s", last.resp)
	} else if suggested == "" {
		t.Errorf("the refusal %s shows no suggested action", last.resp)
	}

	// repo with a repository the gateway does not have: an in-stream error.
	drive(t, ctx, pick(`#agent`, "repo"), chromedp.WaitReady(chromedp.CSS(`#command option[value="default"]`)),
		setText(`#prompt`, "nope"), chromedp.Click(chromedp.CSS(`#send`)), turnDone(2))
	inStream := read(t, ctx, chromedp.Text(chromedp.CSS(turn(2, ".error"))))
	if !strings.HasPrefix(inStream, "STEP_FAILED\n") || !strings.Contains(inStream, `repository "nope": not found`) ||
		!strings.Contains(inStream, "\nSuggested: try again") {
		t.Errorf("the in-stream error shows %q", inStream)
	}
}

// TestPlaygroundScreenshot takes the picture of the playground that README.md and docs/playground.md show
// at 1280×900, the window as a user sees it (Send in sight): the repo
// agent's tree with a folder expanded. With -screenshot it rewrites
// docs/playground.png; without, it checks that one is taken.
func TestPlaygroundScreenshot(t *testing.T) {
	ctx, _ := startPlayground(t)
	signIn(t, ctx)
	drive(t, ctx, chromedp.EmulateViewport(1280, 900), pick(`#agent`, "coder"), chromedp.WaitReady(chromedp.CSS(`#command option[value="default"]`)),
		setText(`#ed-path`, "internal/calc/add.go"),
		setText(`#ed-content`, originMain["internal/calc/add.go"]),
		setText(`#ed-sl`, "4"), setText(`#ed-el`, "6"), setText(`#ed-ec`, "2"),
		setText(`#vcs-branch`, "feature"), setText(`#vcs-upstream`, "origin/main"),
		setText(`#vcs-remote`, allowedRemote),
		setText(`#prompt`, "Is **Add** safe for large numbers?"),
		chromedp.Click(chromedp.CSS(`#send`)), turnDone(1),
		chromedp.Click(chromedp.CSS(turn(1, ".prompt summary"))),
		pick(`#agent`, "repo"), chromedp.WaitReady(chromedp.CSS(`#command option[value="default"]`)),
		setText(`#prompt`, "proj"), chromedp.Click(chromedp.CSS(`#send`)), turnDone(2),
		chromedp.Click(chromedp.CSS(turn(2, `.tree li[data-node-id="internal"] .toggle`))), turnDone(3),
		chromedp.WaitVisible(chromedp.CSS(turn(2, `li[data-node-id="internal/calc"]`))),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	if r := rectOf(t, ctx, `#send`); r.Top < 0 || r.Bottom > 900 {
		t.Errorf("the screenshot would not show Send: it is at %+v", r)
	}
	png := read(t, ctx, chromedp.CaptureScreenshot())
	if len(png) == 0 {
		t.Fatal("no screenshot")
	}
	if *updateScreenshot {
		path := filepath.Join("..", "..", "docs", "playground.png")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
