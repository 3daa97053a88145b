package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// handoffState is what GET /handoffs/{id} says of a message.
type handoffState struct {
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	Failures int    `json:"failures"`
}

// terminal reports whether a hand-off status is final.
func terminal(s string) bool {
	switch s {
	case "QUEUED", "RUNNING", "RETRYING", "":
		return false
	}
	return true
}

// checkLedger waits up to settle for the accepted hand-offs to finish, then
// counts them, the conversations' stored turns and the consent resumes
// against what the clients were told.
func checkLedger(ctx context.Context, rep *report, c *http.Client, f *fleet, t *tally, settle time.Duration, log io.Writer) {
	// Hand-offs: every accepted message ends COMPLETED, run once.
	ids := append(append([]string(nil), t.handoffs...), t.maybe...)
	accepted := len(t.handoffs)
	states := make(map[string]handoffState, len(ids))
	deadline := time.Now().Add(settle)
	t0 := time.Now()
	for {
		pending := fetchHandoffs(ctx, c, f, ids, states)
		if pending == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(time.Second)
	}
	settled := time.Since(t0)
	byStatus := map[string]int{}
	var notDone, twice []string
	missing := 0
	for i, id := range ids {
		s, ok := states[id]
		if !ok {
			if i < accepted {
				missing++
				notDone = append(notDone, id+" (not found)")
			}
			continue
		}
		byStatus[s.Status]++
		if s.Status != "COMPLETED" {
			notDone = append(notDone, fmt.Sprintf("%s %s (attempts %d)", id, s.Status, s.Attempts))
		}
		if s.Attempts > 1+s.Failures {
			twice = append(twice, fmt.Sprintf("%s %s attempts %d failures %d", id, s.Status, s.Attempts, s.Failures))
		}
	}
	rep.add("hand-offs accepted: %d (plus %d whose answer was lost); by status after %s: %s; started again after a crash (attempts > 1 + failures): %d",
		accepted, len(t.maybe), settled.Round(time.Second), fmtCounts(byStatus), len(twice))
	if len(notDone) > 0 {
		rep.fail("handoff-not-done", "%d hand-offs not COMPLETED %s after the load (lost, or stuck until a lease ends): %s", len(notDone), settled.Round(time.Second), firstN(notDone, 8))
	}
	if len(twice) > 0 {
		rep.add("hand-offs started again after a crash: %s", firstN(twice, 8))
	}

	// Conversations: each turn answered whole is stored once; a turn cut
	// off or failing in-stream at most once.
	var lost, doubled []string
	turns, stored := 0, 0
	for id, cv := range t.convos {
		var ctxDoc struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		var err error
		for range 10 {
			gw := f.pick()
			actx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err = apiCall(actx, c, http.MethodGet, gw.url+"/contexts/"+id, nil, &ctxDoc)
			cancel()
			if err == nil || strings.Contains(err.Error(), "CONTEXT_NOT_FOUND") {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		n := 0
		var users []string
		for _, m := range ctxDoc.Messages {
			if m.Role == "user" {
				n++
				users = append(users, fmt.Sprint(m.Content))
			}
		}
		turns += cv.ok
		stored += n
		switch {
		case n < cv.ok:
			lost = append(lost, fmt.Sprintf("%s: %d stored of %d answered (sent: %s; stored: %q; %v)", id, n, cv.ok, strings.Join(cv.turns, ", "), users, err))
		case n > cv.ok+cv.uncertain:
			doubled = append(doubled, fmt.Sprintf("%s: %d stored of %d answered + %d cut (sent: %s; stored: %q)", id, n, cv.ok, cv.uncertain, strings.Join(cv.turns, ", "), users))
		}
	}
	rep.add("conversations: %d, turns answered whole: %d, user turns stored: %d", len(t.convos), turns, stored)
	if len(lost) > 0 {
		rep.fail("convo-lost", "%d conversations lost turns: %s", len(lost), firstN(lost, 5))
	}
	if len(doubled) > 0 {
		rep.fail("convo-twice", "%d conversations stored a turn twice: %s", len(doubled), firstN(doubled, 5))
	}

	// Consent: every paused run the client accepted resumed, once.
	rep.add("consent pauses: %d, resumed whole: %d (%d after a confirm refused with STORE_UNAVAILABLE, sent again), resumes cut off by a kill: %d",
		t.paused, t.resumed, t.resumedLate, t.resumeCut)
	if len(t.resumeLost) > 0 {
		rep.fail("resume-lost", "%d paused runs not resumed: %s", len(t.resumeLost), firstN(t.resumeLost, 5))
	}
	fmt.Fprintf(log, "  ledger checked: %d hand-offs, %d conversations, %d pauses\n", len(ids), len(t.convos), t.paused)
}

// fetchHandoffs reads the status of every id not yet final, 16 at a time,
// and returns how many are still not final.
func fetchHandoffs(ctx context.Context, c *http.Client, f *fleet, ids []string, states map[string]handoffState) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for _, id := range ids {
		mu.Lock()
		s, ok := states[id]
		mu.Unlock()
		if ok && terminal(s.Status) {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var s handoffState
			actx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if _, err := apiCall(actx, c, http.MethodGet, f.pick().url+"/handoffs/"+id, nil, &s); err == nil {
				mu.Lock()
				states[id] = s
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	pending := 0
	for _, id := range ids {
		if s, ok := states[id]; !ok || !terminal(s.Status) {
			pending++
		}
	}
	return pending
}

// schedRun is one run of the schedule.
type schedRun struct {
	ID      string    `json:"id"`
	Due     time.Time `json:"due"`
	Manual  bool      `json:"manual"`
	Status  string    `json:"status"`
	Error   string    `json:"error"`
	Replica string    `json:"replica"`
}

// schedWatch collects the schedule's runs: GET /schedules/{id} shows the
// newest 20, so it is read every two seconds during the load.
type schedWatch struct {
	mu       sync.Mutex
	runs     map[string]schedRun
	runCount int
}

func (w *schedWatch) loop(ctx context.Context, c *http.Client, f *fleet, id string) {
	for {
		w.poll(ctx, c, f, id)
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// stop disables the schedule, then polls until no run of it is RUNNING
// (at most limit), so that the check sees every run finished.
func (w *schedWatch) stop(ctx context.Context, c *http.Client, f *fleet, id string, limit time.Duration) {
	for range 20 {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := apiCall(actx, c, http.MethodPatch, f.pick().url+"/schedules/"+id, map[string]any{"enabled": false}, nil)
		cancel()
		if err == nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	deadline := time.Now().Add(limit)
	for {
		w.poll(ctx, c, f, id)
		w.mu.Lock()
		running := 0
		for _, r := range w.runs {
			if r.Status == "RUNNING" {
				running++
			}
		}
		w.mu.Unlock()
		if running == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// poll reads the schedule once and merges its runs.
func (w *schedWatch) poll(ctx context.Context, c *http.Client, f *fleet, id string) {
	var s struct {
		RunCount int        `json:"runCount"`
		Runs     []schedRun `json:"runs"`
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := apiCall(actx, c, http.MethodGet, f.pick().url+"/schedules/"+id, nil, &s); err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runCount = s.RunCount
	for _, r := range s.Runs {
		w.runs[r.ID] = r
	}
}

// check fails the report on a due time run twice or a run left RUNNING, and
// compares the runs with the times due.
func (w *schedWatch) check(rep *report, elapsed, every time.Duration, faults bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	byDue := map[time.Time][]schedRun{}
	status := map[string]int{}
	for _, r := range w.runs {
		status[r.Status]++
		if !r.Manual && r.Status != "SKIPPED" {
			byDue[r.Due] = append(byDue[r.Due], r)
		}
	}
	var twice, running []string
	for due, rs := range byDue {
		if len(rs) > 1 {
			twice = append(twice, fmt.Sprintf("%s ran %d times", due.Format(time.TimeOnly), len(rs)))
		}
		for _, r := range rs {
			if r.Status == "RUNNING" {
				running = append(running, fmt.Sprintf("due %s on %s", due.Format(time.TimeOnly), r.Replica))
			}
		}
	}
	want := int(elapsed / every)
	rep.add("schedule every %s: %d runs seen (runCount %d, about %d due): %s", every, len(w.runs), w.runCount, want, fmtCounts(status))
	if len(twice) > 0 {
		rep.fail("sched-twice", "schedule times run twice: %s", firstN(twice, 5))
	}
	if len(running) > 0 {
		rep.fail("sched-running", "schedule runs left RUNNING after the load: %s", firstN(running, 5))
	}
	if !faults && w.runCount < want-1 {
		rep.fail("sched-few", "schedule ran %d times in %s, about %d due", w.runCount, elapsed.Round(time.Second), want)
	}
	if n := status["FAILED"]; n > 0 && !faults {
		rep.fail("sched-failed", "%d schedule runs FAILED without a fault", n)
	}
}

// fmtCounts writes a count map in key order.
func fmtCounts(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// firstN joins the first n items, saying how many more there were.
func firstN(items []string, n int) string {
	sort.Strings(items)
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:n], "; ") + fmt.Sprintf("; … %d more", len(items)-n)
}
