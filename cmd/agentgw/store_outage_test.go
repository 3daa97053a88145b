package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/store/pgstore"
)

// pgCut is a TCP proxy between a gateway and PostgreSQL that a test can
// cut, as a database restart does to its clients: every connection is
// dropped and new ones are closed at once until it is mended.
type pgCut struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool
	wg    sync.WaitGroup
	// loseAnswer, when set, picks a statement by its SQL: the next one it
	// picks runs, and commits, and its connection is then cut before the
	// answer reaches the gateway (soak F11); lost is closed then.
	loseAnswer func(sql string) bool
	lost       chan struct{}
}

// newPGCut proxies to the host of rawURL and returns the proxy and rawURL
// pointed at it.
func newPGCut(t *testing.T, rawURL string) (*pgCut, string) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgCut{ln: ln, target: u.Host, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.setCut(true)
		p.wg.Wait()
	})
	u.Host = ln.Addr().String()
	return p, u.String()
}

func (p *pgCut) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = true
		p.mu.Unlock()
		p.wg.Add(1)
		go p.pipe(c)
	}
}

// pipe copies between c and a new connection to the target until either
// side ends or the proxy is cut.
func (p *pgCut) pipe(c net.Conn) {
	defer p.wg.Done()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		p.drop(c)
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		s.Close()
		p.drop(c)
		return
	}
	p.conns[s] = true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	w := &pgWire{p: p, stmts: map[string]bool{}}
	go func() { _ = w.toServer(c, s); done <- struct{}{} }()
	go func() { _ = w.toClient(s, c); done <- struct{}{} }()
	<-done
	p.drop(c)
	p.drop(s)
	<-done
}

func (p *pgCut) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// setCut cuts the proxy (every connection closed, new ones refused) or
// mends it.
func (p *pgCut) setCut(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	if cut {
		for c := range p.conns {
			c.Close()
			delete(p.conns, c)
		}
	}
}

// loseNextAnswer makes the next statement whose SQL pick picks run and
// commit, then cuts its connection before its answer reaches the gateway;
// the channel is closed once it has.
func (p *pgCut) loseNextAnswer(pick func(sql string) bool) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loseAnswer, p.lost = pick, make(chan struct{})
	return p.lost
}

// pgWire follows one connection's PostgreSQL wire protocol (version 3,
// no TLS: the test URL has sslmode=disable) far enough to find the
// statement pgCut.loseAnswer picks: its Parse (a prepared statement's SQL
// by name), then the Bind that runs it. From that Bind on, the server's
// messages are swallowed up to its ReadyForQuery (the implicit
// transaction committed), and then both sides are closed.
type pgWire struct {
	p     *pgCut
	mu    sync.Mutex
	stmts map[string]bool // prepared statements picked, by name
	lose  bool            // swallow the server's answer, then cut
}

// readMsg reads one message: typed (a type byte and a length) or, for the
// startup message, untyped (typ 0).
func readMsg(r io.Reader, typed bool) (typ byte, msg []byte, err error) {
	hdr := make([]byte, 5)
	if !typed {
		hdr = hdr[1:]
	}
	if _, err := io.ReadFull(r, hdr); err != nil {
		return 0, nil, err
	}
	if typed {
		typ = hdr[0]
	}
	n := int(binary.BigEndian.Uint32(hdr[len(hdr)-4:])) - 4
	if n < 0 || n > 1<<26 {
		return 0, nil, fmt.Errorf("message of %d bytes", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, nil, err
	}
	return typ, append(hdr, body...), nil
}

// cstrings splits the first n NUL-terminated strings of a message's body.
func cstrings(body []byte, n int) []string {
	var out []string
	for range n {
		i := bytes.IndexByte(body, 0)
		if i < 0 {
			break
		}
		out = append(out, string(body[:i]))
		body = body[i+1:]
	}
	return out
}

func (w *pgWire) toServer(c, s net.Conn) error {
	_, msg, err := readMsg(c, false)
	if err != nil {
		return err
	}
	if _, err := s.Write(msg); err != nil {
		return err
	}
	for {
		typ, msg, err := readMsg(c, true)
		if err != nil {
			return err
		}
		switch typ {
		case 'P': // Parse: name, query
			if f := cstrings(msg[5:], 2); len(f) == 2 {
				w.p.mu.Lock()
				pick := w.p.loseAnswer
				w.p.mu.Unlock()
				w.mu.Lock()
				w.stmts[f[0]] = pick != nil && pick(f[1])
				w.mu.Unlock()
			}
		case 'B': // Bind: portal, statement
			if f := cstrings(msg[5:], 2); len(f) == 2 {
				w.mu.Lock()
				picked := w.stmts[f[1]]
				w.mu.Unlock()
				w.p.mu.Lock()
				if picked && w.p.loseAnswer != nil {
					w.p.loseAnswer = nil
					w.mu.Lock()
					w.lose = true
					w.mu.Unlock()
				}
				w.p.mu.Unlock()
			}
		}
		if _, err := s.Write(msg); err != nil {
			return err
		}
	}
}

func (w *pgWire) toClient(s, c net.Conn) error {
	for {
		typ, msg, err := readMsg(s, true)
		if err != nil {
			return err
		}
		w.mu.Lock()
		lose := w.lose
		w.mu.Unlock()
		if !lose {
			if _, err := c.Write(msg); err != nil {
				return err
			}
			continue
		}
		if typ == 'Z' { // ReadyForQuery: the statement committed
			// Told before the cut, so that the test sees it once the
			// gateway has answered for the cut.
			w.p.mu.Lock()
			close(w.p.lost)
			w.p.mu.Unlock()
			c.Close()
			s.Close()
			return nil
		}
	}
}

// outageAgents: a conversation's model command, and a plan whose tool
// step asks for consent first (the soak's "consent").
const outageRelayAgent = `name: relay
commands:
  - name: default
    messageTemplates:
      - role: user
        template: "{{ .userInputPrompt }}"
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
`

const outagePlanAgent = `name: plan
tools:
  - name: approve
    description: Echo once the user agrees.
    runtime: native
    entry: echo
    args: [approved]
    env: [PATH]
    permissionLevel: USER_CONSENT
    userPrompt: Run the approved step?
    parameters: {type: object, properties: {n: {type: string}}}
commands:
  - name: default
    reply: "ask for consent"
  - name: consent
    steps:
      - id: approve
        tool: approve
        with: {n: "{{ .userInputPrompt }}"}
      - id: done
        dependsOn: [approve]
        reply: "done: {{ .steps.approve.result }}"
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
`

// storeUnavailable is the ERROR_RESPONSE's content a request needing the
// store gets while it is down, before its stream.
type outageError struct {
	ErrorCode   string `json:"errorCode"`
	Recoverable bool   `json:"recoverable"`
}

// outageAnswer posts body and says how the gateway answered while the
// store was down: "refused" (an ERROR_RESPONSE STORE_UNAVAILABLE,
// recoverable, status 503), "error frame" (a stream with one
// copilot_error STORE_UNAVAILABLE, then the end chunk and the
// terminator), "ok" (a whole answer), or what was wrong.
func outageAnswer(base, path, body string) string {
	resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
	if err != nil {
		return "no answer: " + err.Error()
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Sprintf("status %d, body cut after %q: %v", resp.StatusCode, data, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Type    string      `json:"type"`
			Content outageError `json:"content"`
		}
		if json.Unmarshal(data, &e) != nil || resp.StatusCode != http.StatusServiceUnavailable || e.Type != "ERROR_RESPONSE" ||
			e.Content != (outageError{ErrorCode: "STORE_UNAVAILABLE", Recoverable: true}) {
			return fmt.Sprintf("status %d: %s", resp.StatusCode, data)
		}
		return "refused"
	}
	frames := strings.Split(strings.TrimSuffix(string(data), "\n\n"), "\n\n")
	n := len(frames)
	if n < 2 || frames[n-1] != "data: [DONE]" {
		return fmt.Sprintf("a stream without the terminator: %q", data)
	}
	errs := 0
	for i, f := range frames {
		if !strings.HasPrefix(f, "event: copilot_error\n") {
			continue
		}
		errs++
		var e outageError
		if json.Unmarshal([]byte(strings.TrimPrefix(f, "event: copilot_error\ndata: ")), &e) != nil ||
			e != (outageError{ErrorCode: "STORE_UNAVAILABLE", Recoverable: true}) || i != n-3 ||
			!strings.Contains(frames[n-2], `"finish_reason":"error"`) {
			return fmt.Sprintf("an error frame that is not STORE_UNAVAILABLE's before the end frames: %q", data)
		}
	}
	switch {
	case errs == 0 && strings.Contains(frames[n-2], `"finish_reason":"stop"`):
		return "ok"
	case errs == 1:
		return "error frame"
	}
	return fmt.Sprintf("%d error frames: %q", errs, data)
}

// TestStoreOutage: PostgreSQL goes away under a gateway (issue 28: the
// database restarted under load). Requests that need the store meanwhile —
// a conversation's next turn, the confirm that resumes a paused run — get
// STORE_UNAVAILABLE, recoverable, as an ERROR_RESPONSE or, once their
// stream started, as one error frame before the end frames and the
// terminator: never a connection closed without an answer (soak F9). Once
// PostgreSQL is back, the same gateway, not restarted, serves them: the
// turn before the outage is still in the conversation, and the run paused
// before it resumes, whatever confirms met the outage (soak F10).
func TestStoreOutage(t *testing.T) {
	proxy, storeURL := newPGCut(t, pgtest.Schema(t))
	dir := t.TempDir()
	writeFile(t, dir, "agents/relay.yaml", outageRelayAgent)
	writeFile(t, dir, "agents/plan.yaml", outagePlanAgent)
	up := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text(fmt.Sprintf("answer %d", len(r.Messages)))
	}))
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Store.URL = storeURL
	base := startGateway(t, cfg, map[string]string{"PATH": os.Getenv("PATH")})

	turn := func(n int) string {
		return fmt.Sprintf(`{"contextId":"f9-outage","contextVariables":[{"name":"userInputPrompt","value":"turn %d"}]}`, n)
	}
	if got := outageAnswer(base, "/agents/relay", turn(1)); got != "ok" {
		t.Fatalf("turn 1 before the outage: %s", got)
	}
	const pauses = 8
	var confirms []string
	for i := range pauses {
		a := ask(t, base+"/agents/plan", fmt.Sprintf(`{"command":"consent","contextVariables":[{"name":"userInputPrompt","value":"p%d"}]}`, i)).only(t)
		if a.Action != "confirm" {
			t.Fatalf("pause %d: action %q", i, a.Action)
		}
		confirms = append(confirms, fmt.Sprintf(`{"command":"consent","action":{"action":"confirm","state":%s,"accepted":true},"contextVariables":[{"name":"userInputPrompt","value":"p%d"}]}`, a.State, i))
	}

	proxy.setCut(true)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		bad []string
	)
	check := func(what, got string) {
		if got != "refused" && got != "error frame" {
			mu.Lock()
			bad = append(bad, what+": "+got)
			mu.Unlock()
		}
	}
	for i := range pauses {
		wg.Go(func() {
			check(fmt.Sprintf("confirm %d during the outage", i), outageAnswer(base, "/agents/plan", confirms[i]))
		})
		wg.Go(func() {
			check(fmt.Sprintf("turn 2 (%d) during the outage", i), outageAnswer(base, "/agents/relay", turn(2)))
		})
	}
	wg.Wait()
	for _, b := range bad {
		t.Error(b)
	}

	proxy.setCut(false)
	for i, c := range confirms {
		a := ask(t, base+"/agents/plan", c)
		if e := a.errorFrame(); e != nil || !strings.HasPrefix(a.text, "done: approved") {
			t.Errorf("confirm %d after the outage: %q, error %+v", i, a.text, e)
		}
	}
	if got := outageAnswer(base, "/agents/relay", turn(2)); got != "ok" {
		t.Fatalf("turn 2 after the outage: %s", got)
	}
	resp, err := http.Get(base + "/contexts/f9-outage")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var conv struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&conv); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	var got []string
	for _, m := range conv.Messages {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: turn 1", "assistant: answer 1", "user: turn 2", "assistant: answer 3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the conversation after the outage:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStoreOutageUnderLoad: the proxy is cut while clients are in the
// middle of their requests (a statement sent, a stream running), as
// PostgreSQL's restart under the soak's load does, then mended. Every
// request gets a whole answer, a STORE_UNAVAILABLE ERROR_RESPONSE, or one
// STORE_UNAVAILABLE error frame and the terminator (soak F9); every run
// paused before or during the outage resumes once the confirm is sent
// again after it (soak F10), even when the cut lost the answer to the
// statement that took it (soak F11).
func TestStoreOutageUnderLoad(t *testing.T) {
	proxy, storeURL := newPGCut(t, pgtest.Schema(t))
	dir := t.TempDir()
	writeFile(t, dir, "agents/relay.yaml", outageRelayAgent)
	writeFile(t, dir, "agents/plan.yaml", outagePlanAgent)
	up := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text("a", "n", "s", "w", "e", "r")
	}))
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Store.URL = storeURL
	base := startGateway(t, cfg, map[string]string{"PATH": os.Getenv("PATH")})

	const workers = 12
	var (
		mu       sync.Mutex
		bad      []string
		lost     []string // paused runs lost to a refused confirm (F11)
		sent     int      // answers seen
		refusals int      // STORE_UNAVAILABLE seen, refused or in-stream
		phase    = 0      // 0 before the cut, 1 cut, 2 mended
		okAfter  = 0      // workers that saw a whole answer after the mend
		stop     bool     // every worker saw one: stop
		changed  = sync.NewCond(&mu)
	)
	// note records an answer and returns the phase it was seen in.
	note := func(what, got string) int {
		mu.Lock()
		defer mu.Unlock()
		sent++
		switch got {
		case "ok":
		case "refused", "error frame":
			refusals++
		default:
			bad = append(bad, what+": "+got)
		}
		changed.Broadcast()
		return phase
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			seenOK := false
			for n := 0; ; n++ {
				mu.Lock()
				done := stop
				mu.Unlock()
				if done {
					return
				}
				id := fmt.Sprintf("f9-load-%d-%d", w, n)
				for turn := 1; turn <= 2; turn++ {
					body := fmt.Sprintf(`{"contextId":%q,"contextVariables":[{"name":"userInputPrompt","value":"turn %d"}]}`, id, turn)
					if got := outageAnswer(base, "/agents/relay", body); note(id+" turn", got) == 2 && got == "ok" && !seenOK {
						seenOK = true
						mu.Lock()
						okAfter++
						mu.Unlock()
					}
				}
				pause := fmt.Sprintf(`{"command":"consent","contextVariables":[{"name":"userInputPrompt","value":%q}]}`, id)
				resp, events, err := readAgent(base+"/agents/plan", pause)
				if err != nil || resp.StatusCode != http.StatusOK {
					note(id+" pause", "refused") // the pause itself met the outage
					continue
				}
				var state json.RawMessage
				for _, ev := range events {
					if ev.Name == "copilot_action" {
						var a sentAction
						if json.Unmarshal([]byte(ev.Data), &a) == nil && a.Action == "confirm" {
							state = a.State
						}
					}
				}
				if state == nil {
					note(id+" pause", "error frame") // not paused: its record could not be kept
					continue
				}
				confirm := fmt.Sprintf(`{"command":"consent","action":{"action":"confirm","state":%s,"accepted":true},"contextVariables":[{"name":"userInputPrompt","value":%q}]}`, state, id)
				// The confirm is sent again while the store is unavailable:
				// the paused run must still be waiting once it is back.
				refusedBefore := false
				for {
					got := outageAnswer(base, "/agents/plan", confirm)
					if refusedBefore && strings.Contains(got, `"errorCode":"STATE_INVALID"`) {
						// Soak F11: the refused confirm's take of the
						// paused run committed, its answer was lost, and
						// the run was not given back.
						mu.Lock()
						lost = append(lost, id)
						mu.Unlock()
						break
					}
					note(id+" confirm", got)
					if got != "refused" {
						break
					}
					refusedBefore = true
					mu.Lock()
					for phase == 1 {
						changed.Wait()
					}
					mu.Unlock()
				}
			}
		})
	}
	mu.Lock()
	for sent < 2*workers {
		changed.Wait()
	}
	phase = 1
	mu.Unlock()
	proxy.setCut(true)
	mu.Lock()
	for refusals < 4*workers {
		changed.Wait()
	}
	mu.Unlock()
	proxy.setCut(false)
	mu.Lock()
	phase = 2
	changed.Broadcast()
	for okAfter < workers {
		changed.Wait()
	}
	stop = true
	mu.Unlock()
	wg.Wait()
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("%d answers, %d STORE_UNAVAILABLE", sent, refusals)
	if len(lost) > 0 {
		t.Errorf("soak F11: %d paused runs lost: their confirm was refused with STORE_UNAVAILABLE, and the same confirm once the store was back found no paused run (STATE_INVALID): %v", len(lost), lost)
	}
}

// TestStoreOutageTakeLost (soak F11): the connection drops after
// PostgreSQL ran the statement that takes a paused run (and committed it)
// but before its answer reached the gateway. The confirm is refused with
// STORE_UNAVAILABLE, recoverable, and the run is not lost: the same
// confirm, once the store answers, resumes it, and a third finds it
// answered (STATE_INVALID); no claimed or waiting record is left.
func TestStoreOutageTakeLost(t *testing.T) {
	db := pgtest.Schema(t)
	proxy, storeURL := newPGCut(t, db)
	dir := t.TempDir()
	writeFile(t, dir, "agents/plan.yaml", outagePlanAgent)
	up := llmtest.New(t, llmtest.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Text("unused") }))
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Store.URL = storeURL
	base := startGateway(t, cfg, map[string]string{"PATH": os.Getenv("PATH")})

	a := ask(t, base+"/agents/plan", `{"command":"consent","contextVariables":[{"name":"userInputPrompt","value":"p"}]}`).only(t)
	if a.Action != "confirm" {
		t.Fatalf("action %q", a.Action)
	}
	confirm := fmt.Sprintf(`{"command":"consent","action":{"action":"confirm","state":%s,"accepted":true},"contextVariables":[{"name":"userInputPrompt","value":"p"}]}`, a.State)
	// The take: one statement on the store's table returning the value.
	lost := proxy.loseNextAnswer(func(sql string) bool {
		return strings.Contains(sql, " store ") && strings.Contains(sql, "RETURNING value")
	})
	if got := outageAnswer(base, "/agents/plan", confirm); got != "refused" {
		t.Fatalf("the confirm whose take's answer was lost: %s", got)
	}
	select {
	case <-lost:
	default:
		t.Fatal("no take's answer was lost")
	}
	resumed := ask(t, base+"/agents/plan", confirm)
	if e := resumed.errorFrame(); e != nil || resumed.text != "done: approved approve --n=p" {
		t.Fatalf("the same confirm once the store answers: %q, error %+v", resumed.text, e)
	}
	if got := outageAnswer(base, "/agents/plan", confirm); !strings.Contains(got, `"errorCode":"STATE_INVALID"`) {
		t.Fatalf("a third confirm: %s", got)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the plan asked the model %d times", n)
	}
	if n := storeRows(t, db, "pause/"); n != 0 {
		t.Errorf("%d pause/ rows left, claimed or not; want 0 once the run resumed", n)
	}
}

// storeRows counts the rows of the store table in db whose key begins
// with prefix, expired or claimed ones too, once the background deletion
// of a taken run's claimed row has run (it waits for it, not for a time).
func storeRows(t *testing.T, db, prefix string) int64 {
	t.Helper()
	ctx := context.Background()
	st, err := pgstore.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int64
	for {
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM store WHERE substr(key, 1, $2) = $1`, []byte(prefix), len(prefix)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 || ctx.Err() != nil {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}
