package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// handoffResult is the hand-off rows' figures: messages posted to the
// gateway's POST /handoffs for the bench agent, whose ack command replies
// at once. The times are the gateway's own, from GET /handoffs/{id}:
// queue-to-start is started_at − created_at (the queue took the message
// and its run began), done is finished_at − created_at.
type handoffResult struct {
	// Sequential: one message at a time, each waited for; its done times,
	// SeqStart its queue-to-start times.
	Sequential quantiles       `json:"sequential"`
	SeqSamples []time.Duration `json:"sequential_samples_ns"`
	SeqStart   quantiles       `json:"sequential_start"`
	// Burst: Posted messages by Conc concurrent posters; PerSec is Posted
	// over the first created_at to the last finished_at. Burst is the done
	// times, BurstStart the queue-to-start times.
	Posted       int             `json:"burst_posted"`
	Conc         int             `json:"burst_concurrency"`
	PerSec       float64         `json:"burst_per_sec"`
	Burst        quantiles       `json:"burst"`
	BurstSamples []time.Duration `json:"burst_samples_ns"`
	BurstStart   quantiles       `json:"burst_start"`
	Errors       int             `json:"errors"`
}

// handoffOptions are the hand-off scenario's settings.
type handoffOptions struct {
	sequential, burst, conc int
	// dbg, with profile set, takes a CPU profile of the gateway over the
	// first profileSecs seconds of the burst, written to profile.
	dbg         *debugClient
	profile     string
	profileSecs int
}

// handoffStatus is what the bench reads of GET /handoffs/{id}.
type handoffStatus struct {
	Status     string    `json:"status"`
	Error      string    `json:"error"`
	CreatedAt  time.Time `json:"created_at"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
}

// started is the message's queue-to-start time: 0 when the gateway shows
// no start (an older one).
func (s *handoffStatus) started() time.Duration {
	if s.StartedAt.IsZero() {
		return 0
	}
	return s.StartedAt.Sub(s.CreatedAt)
}

// runHandoffs posts o.sequential messages one at a time, waiting for each,
// then o.burst messages from o.conc concurrent posters, and waits for all.
func runHandoffs(ctx context.Context, base string, o handoffOptions, log io.Writer) (*handoffResult, error) {
	c := newClient(o.conc + 4)
	defer c.CloseIdleConnections()
	res := &handoffResult{Posted: o.burst, Conc: o.conc}
	next := newUUID
	var seqStart, burstStart []time.Duration
	// A few uncounted ones first.
	for i := range o.sequential + 3 {
		id := next()
		if err := postHandoff(ctx, c, base, id); err != nil {
			return nil, err
		}
		st, err := waitHandoff(ctx, c, base, id)
		if err != nil {
			return nil, err
		}
		if i >= 3 {
			res.SeqSamples = append(res.SeqSamples, st.FinishedAt.Sub(st.CreatedAt))
			seqStart = append(seqStart, st.started())
		}
	}
	res.Sequential, res.SeqStart = summarize(res.SeqSamples), summarize(seqStart)
	fmt.Fprintf(log, "hand-offs: %d sequential done; posting %d from %d posters\n", o.sequential, o.burst, o.conc)
	ids := make([]string, o.burst)
	for i := range ids {
		ids[i] = next()
	}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	var prof []byte
	var profErr error
	var profiled sync.WaitGroup
	if o.profile != "" && o.dbg != nil {
		profiled.Go(func() {
			prof, profErr = o.dbg.get(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", o.profileSecs))
		})
	}
	work := make(chan string)
	for range o.conc {
		wg.Go(func() {
			for id := range work {
				if err := postHandoff(ctx, c, base, id); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	var first, last time.Time
	for _, id := range ids {
		st, err := waitHandoff(ctx, c, base, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			if res.Errors++; res.Errors <= 3 {
				fmt.Fprintf(log, "hand-offs: %v\n", err)
			}
			continue
		}
		if first.IsZero() || st.CreatedAt.Before(first) {
			first = st.CreatedAt
		}
		if st.FinishedAt.After(last) {
			last = st.FinishedAt
		}
		res.BurstSamples = append(res.BurstSamples, st.FinishedAt.Sub(st.CreatedAt))
		burstStart = append(burstStart, st.started())
	}
	if d := last.Sub(first); d > 0 {
		res.PerSec = float64(len(res.BurstSamples)) / d.Seconds()
	}
	res.Burst, res.BurstStart = summarize(res.BurstSamples), summarize(burstStart)
	if o.profile != "" && o.dbg != nil {
		profiled.Wait()
		if profErr != nil {
			return nil, fmt.Errorf("profiling the hand-off burst: %w", profErr)
		}
		if err := os.WriteFile(o.profile, prof, 0o644); err != nil {
			return nil, fmt.Errorf("writing the hand-off profile: %w", err)
		}
		fmt.Fprintf(log, "hand-offs: CPU profile of the first %d s of the burst written to %s\n", o.profileSecs, o.profile)
	}
	return res, nil
}

// newUUID is a random (version 4) UUID, as message ids must be.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// postHandoff posts one NOTIFICATION message for the bench agent.
func postHandoff(ctx context.Context, c *http.Client, base, id string) error {
	msg := mustJSON(map[string]any{
		"metadata": map[string]string{
			"message_id": id, "timestamp": time.Now().UTC().Format(time.RFC3339Nano), "protocol_version": "1.0.0",
			"sender_id": "bench-client", "recipient_id": "bench", "task_id": "task-" + id, "priority": "MEDIUM",
		},
		"context":      map[string]any{"workflow_state": "BENCH", "previous_actions": []any{}},
		"instructions": map[string]string{"next_steps_suggestion": "Acknowledge it."},
		"payload": map[string]any{
			"handoff_type": "NOTIFICATION",
			"data":         map[string]string{"event_type": "bench", "message": "a hand-off the bench measures"},
		},
	})
	if err := call(ctx, c, http.MethodPost, base+"/handoffs", msg, http.StatusAccepted); err != nil {
		return fmt.Errorf("posting hand-off %s: %w", id, err)
	}
	return nil
}

// waitHandoff polls GET /handoffs/{id} every 2 ms until the message is
// COMPLETED (another final status is an error), for up to a minute.
func waitHandoff(ctx context.Context, c *http.Client, base, id string) (*handoffStatus, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := getHandoff(ctx, c, base, id)
		if err != nil {
			return nil, err
		}
		switch st.Status {
		case "COMPLETED":
			return st, nil
		case "QUEUED", "RUNNING":
		default:
			return nil, fmt.Errorf("hand-off %s ended %s: %s", id, st.Status, st.Error)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("hand-off %s still %s after a minute", id, st.Status)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// getHandoff reads one message's status.
func getHandoff(ctx context.Context, c *http.Client, base, id string) (*handoffStatus, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/handoffs/"+id, nil)
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading hand-off %s: %w", id, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading hand-off %s: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading hand-off %s: status %d: %.300s", id, resp.StatusCode, body)
	}
	var st handoffStatus
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, fmt.Errorf("decoding hand-off %s's status: %w", id, err)
	}
	return &st, nil
}

// handoffProfileSeconds is how long -profile samples the gateway during
// the hand-off burst.
const handoffProfileSeconds = 10
