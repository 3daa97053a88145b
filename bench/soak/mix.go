package main

import (
	"context"
	crand "crypto/rand"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// kind is one item of the mix a client runs.
type kind int

const (
	kRelay   kind = iota // a model command, relayed
	kPlan                // a plan: a tool step, then a model step
	kConsent             // a plan whose tool step asks: paused, then resumed by feedback
	kConvo               // a conversation: three turns with one contextId
	kHandoff             // POST /handoffs to the worker agent
	kSendoff             // a plan whose handoff step queues a message to the worker
	kRecall              // a command recalling from the knowledge base
	numKinds
)

var kindNames = [numKinds]string{"relay", "plan+tool", "consent", "conversation turn", "hand-off (API)", "hand-off (step)", "recall"}

// weights is the mix, in percent.
var weights = [numKinds]int{30, 17, 12, 20, 4, 4, 13}

// pick draws a kind by the weights.
func pick(r *rand.Rand) kind {
	n := r.IntN(100)
	for k, w := range weights {
		if n < w {
			return kind(k)
		}
		n -= w
	}
	return kRelay
}

// tally counts what the clients saw, and what they sent that the gateway
// accepted (the ledger checked at the end).
type tally struct {
	mu       sync.Mutex
	outcomes [numKinds][numOutcomes]int
	codes    map[string]int    // error codes of error frames and refusals
	broken   []string          // the first broken streams, described
	samples  map[string]string // an error code's first message
	retries  atomic.Int64      // requests sent again because the replica was down before anything was sent
	// spares counts the requests that were the first on a pooled
	// connection silent for over spareSilence since it was dialed, and
	// spareOldest is the oldest such connection (F9).
	spares      int
	spareOldest time.Duration

	handoffs   []string // message ids the gateway accepted (202/200, or a step's "sent <id>")
	maybe      []string // message ids sent whose answer was lost with a killed replica
	convos     map[string]*convo
	paused     int // consent runs paused with a confirm
	resumed    int // resumed by the feedback, whole
	resumeLost []string
	resumeCut  int // resumes cut off by a kill (the paused run was taken: not retried)
	// resumedLate counts the resumed runs whose confirm was refused with
	// STORE_UNAVAILABLE first, and sent again.
	resumedLate int
}

// spareSilence is the gateway's ReadHeaderTimeout (server's
// DefaultReadHeaderTimeout): before F9's fix, a gateway closed a new
// connection that had sent nothing for that long, and a request the client
// sent on it as it did failed with EOF.
const spareSilence = 10 * time.Second

// A confirm refused with STORE_UNAVAILABLE is sent again this often, for
// up to this long (an outage and the replicas' recovery).
const (
	resumeRetryEvery = 500 * time.Millisecond
	resumeRetryFor   = time.Minute
)

// convo is one conversation's turns as the client saw them.
type convo struct {
	gw        *gateway // a replica to ask at the end
	ok        int      // turns answered whole: each must be stored once
	uncertain int      // turns cut off or failing in-stream: stored at most once
	turns     []string // each turn's outcome, for the report
}

func newTally() *tally {
	return &tally{codes: map[string]int{}, samples: map[string]string{}, convos: map[string]*convo{}}
}

// add counts one result of kind k.
func (t *tally) add(k kind, r result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.outcomes[k][r.outcome]++
	if r.firstUseAge > spareSilence {
		t.spares++
		t.spareOldest = max(t.spareOldest, r.firstUseAge)
	}
	if r.code != "" && (r.outcome == errFrame || r.outcome == refused) {
		t.codes[r.code]++
		if _, ok := t.samples[r.code]; !ok {
			t.samples[r.code] = fmt.Sprintf("%s: %.300s", kindNames[k], r.detail)
		}
	}
	if r.outcome == broken && len(t.broken) < 20 {
		t.broken = append(t.broken, fmt.Sprintf("%s: %s", kindNames[k], r.detail))
	}
}

// fleet is the gateways the clients spread over (one, or the replicas).
type fleet struct {
	gws  []*gateway
	next atomic.Uint64
}

// pick returns the next gateway not known to be down.
func (f *fleet) pick() *gateway {
	for range 2 * len(f.gws) {
		g := f.gws[f.next.Add(1)%uint64(len(f.gws))]
		if !g.down.Load() {
			return g
		}
	}
	return f.gws[f.next.Add(1)%uint64(len(f.gws))]
}

// mixer runs the clients.
type mixer struct {
	f       *fleet
	c       *http.Client
	t       *tally
	run     string        // this run's id, in every context id and message id
	gap     time.Duration // X-Mock-Gap: the time between the mock's chunks
	timeout time.Duration // one stream's bound
}

// stream sends one agent request, sending it again on another replica when
// the connection could not be made (nothing was sent: what a proxy in front
// does).
func (m *mixer) stream(ctx context.Context, path string, body any) (result, *gateway) {
	hdr := http.Header{"X-Mock-Gap": {m.gap.String()}}
	for attempt := 0; ; attempt++ {
		gw := m.f.pick()
		sctx, cancel := context.WithTimeout(ctx, m.timeout)
		r := sendStream(sctx, m.c, gw, path, body, hdr)
		cancel()
		if r.dial && attempt < 20 && ctx.Err() == nil {
			m.t.retries.Add(1)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		return r, gw
	}
}

// client loops over the mix until ctx ends.
func (m *mixer) client(ctx context.Context, id int) {
	r := rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
	for n := 0; ctx.Err() == nil; n++ {
		k := pick(r)
		prompt := fmt.Sprintf("soak %s client %d item %d", m.run, id, n)
		switch k {
		case kRelay, kPlan, kRecall:
			agent := map[kind]string{kRelay: "relay", kPlan: "plan", kRecall: "recall"}[k]
			res, _ := m.stream(ctx, "/agents/"+agent, agentBody("", prompt))
			m.count(ctx, k, res)
		case kConvo:
			m.conversation(ctx, fmt.Sprintf("soak-%s-%d-%d", m.run, id, n), prompt)
		case kConsent:
			m.consent(ctx, prompt)
		case kHandoff:
			m.postHandoff(ctx, prompt)
		case kSendoff:
			body := agentBody("sendoff", prompt)
			res, _ := m.stream(ctx, "/agents/plan", body)
			m.count(ctx, k, res)
			if res.outcome == okStream {
				id := lastField(res.text)
				m.t.mu.Lock()
				m.t.handoffs = append(m.t.handoffs, id)
				m.t.mu.Unlock()
			}
		}
	}
}

// count adds a result, unless the harness was stopping when it ended.
func (m *mixer) count(ctx context.Context, k kind, r result) {
	if ctx.Err() != nil && r.outcome != okStream {
		return
	}
	m.t.add(k, r)
}

// agentBody is an agent request with the user's input.
func agentBody(command, prompt string) map[string]any {
	b := map[string]any{"contextVariables": []map[string]any{{"name": "userInputPrompt", "value": prompt}}}
	if command != "" {
		b["command"] = command
	}
	return b
}

// conversation runs three turns of one conversation.
func (m *mixer) conversation(ctx context.Context, id, prompt string) {
	var cv *convo
	for turn := range 3 {
		body := agentBody("", fmt.Sprintf("%s turn %d", prompt, turn))
		body["contextId"] = id
		res, gw := m.stream(ctx, "/agents/relay", body)
		if ctx.Err() != nil && res.outcome != okStream {
			// Stopped by the harness mid-turn: the turn may or may not be kept.
			if cv != nil {
				m.t.mu.Lock()
				cv.uncertain++
				m.t.mu.Unlock()
			}
			return
		}
		m.t.add(kConvo, res)
		m.t.mu.Lock()
		if cv == nil {
			cv = &convo{gw: gw}
			m.t.convos[id] = cv
		}
		cv.turns = append(cv.turns, fmt.Sprintf("turn %d %s%s on %s", turn, outcomeNames[res.outcome], map[bool]string{true: " " + res.code}[res.code != ""], gw.name))
		switch res.outcome {
		case okStream:
			cv.ok++
		case errFrame, cutByKill, broken:
			cv.uncertain++
		}
		m.t.mu.Unlock()
	}
}

// consent runs the consent command, then accepts the confirm it pauses
// with, as the plugin does.
func (m *mixer) consent(ctx context.Context, prompt string) {
	body := agentBody("consent", prompt)
	res, _ := m.stream(ctx, "/agents/plan", body)
	if res.outcome != okStream {
		m.count(ctx, kConsent, res)
		return
	}
	if len(res.actions) != 1 {
		m.count(ctx, kConsent, result{outcome: broken, detail: fmt.Sprintf("paused with %d actions, want one confirm: %q", len(res.actions), res.text)})
		return
	}
	var a struct {
		Action string `json:"action"`
		State  string `json:"state"`
	}
	if err := json.Unmarshal(res.actions[0], &a); err != nil || a.Action != "confirm" || a.State == "" {
		m.count(ctx, kConsent, result{outcome: broken, detail: fmt.Sprintf("pause action %s", res.actions[0])})
		return
	}
	m.t.mu.Lock()
	m.t.paused++
	m.t.mu.Unlock()
	body["action"] = map[string]any{"action": "confirm", "state": a.State, "accepted": true}
	res, _ = m.stream(ctx, "/agents/plan", body)
	// A confirm refused with STORE_UNAVAILABLE (recoverable) left the run
	// waiting (F10: the paused run is read, and taken, only when the store
	// answers): the user clicks again, and the run must resume once the
	// store is back, even after the load ended.
	retried := false
	for wait := time.Duration(0); res.outcome == refused && res.code == "STORE_UNAVAILABLE" && wait < resumeRetryFor; wait += resumeRetryEvery {
		m.t.add(kConsent, res)
		retried = true
		time.Sleep(resumeRetryEvery)
		res, _ = m.stream(context.WithoutCancel(ctx), "/agents/plan", body)
	}
	if ctx.Err() != nil && res.outcome != okStream && !retried {
		return
	}
	m.t.add(kConsent, res)
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	switch {
	case res.outcome == okStream && strings.Contains(res.text, "done: approved"):
		m.t.resumed++
		if retried {
			m.t.resumedLate++
		}
	case res.outcome == okStream:
		m.t.resumeLost = append(m.t.resumeLost, "resumed without the tool's result: "+res.text)
	case res.outcome == cutByKill:
		m.t.resumeCut++
	default:
		m.t.resumeLost = append(m.t.resumeLost, fmt.Sprintf("%s %s: %s", outcomeNames[res.outcome], res.code, res.detail))
	}
}

// postHandoff sends a NOTIFICATION to the worker agent over the API, again
// with the same message id when the answer was lost (the API answers a
// message seen before with its status: nothing runs twice).
func (m *mixer) postHandoff(ctx context.Context, prompt string) {
	id := newUUID()
	msg := map[string]any{
		"metadata": map[string]any{
			"message_id": id, "timestamp": time.Now().UTC().Format(time.RFC3339), "protocol_version": "1.0.0",
			"sender_id": "soak", "recipient_id": "worker", "task_id": "soak-" + id, "priority": "MEDIUM",
		},
		"context":      map[string]any{"workflow_state": "SOAK", "previous_actions": []any{}},
		"instructions": map[string]any{"next_steps_suggestion": "Answer the soak."},
		"payload":      map[string]any{"handoff_type": "NOTIFICATION", "data": map[string]any{"event_type": "SOAK", "message": prompt}},
	}
	for attempt := 0; ; attempt++ {
		gw := m.f.pick()
		gen := gw.gen.Load()
		actx, cancel := context.WithTimeout(ctx, 30*time.Second)
		status, err := apiCall(actx, m.c, http.MethodPost, gw.url+"/handoffs", msg, nil)
		cancel()
		if err == nil && (status == http.StatusAccepted || status == http.StatusOK) {
			m.t.add(kHandoff, result{outcome: okStream})
			m.t.mu.Lock()
			m.t.handoffs = append(m.t.handoffs, id)
			m.t.mu.Unlock()
			return
		}
		if ctx.Err() != nil {
			m.t.mu.Lock()
			m.t.maybe = append(m.t.maybe, id)
			m.t.mu.Unlock()
			return
		}
		killed := status == 0 && (gw.gen.Load() != gen || gw.down.Load())
		if (killed || status == http.StatusServiceUnavailable) && attempt < 20 {
			m.t.retries.Add(1)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		res := result{outcome: refused, code: fmt.Sprintf("HTTP %d", status), detail: err.Error()}
		if _, rest, ok := strings.Cut(err.Error(), "/handoffs: "); ok && status != 0 {
			// apiCall's error names the ERROR_RESPONSE's code first.
			res.code, _, _ = strings.Cut(rest, ":")
		}
		if status == 0 {
			res.outcome, res.code = broken, ""
		}
		m.t.add(kHandoff, res)
		if status == 0 {
			// Sent, and the answer lost: it may have been queued.
			m.t.mu.Lock()
			m.t.maybe = append(m.t.maybe, id)
			m.t.mu.Unlock()
		}
		return
	}
}

// lastField is the last space-separated word of s.
func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// newUUID is a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
