package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// storedTurns is the number of earlier turns (a user message and the
// model's answer each) the stateful path's conversation holds when its
// request is sent: issue 28's "a stateful turn (20 stored turns)".
const storedTurns = 20

// statefulPrepare returns a target.prepare for the stateful path of the
// gateway at base (http://host:port): before each request it creates a
// fresh conversation with storedTurns turns through the contexts API (POST
// /contexts, then one PATCH ADD_MESSAGE with all the messages), outside the
// measured time, and returns the latency request continuing it. A fresh
// conversation each time, because every answered request appends its turn.
func statefulPrepare(client *http.Client, base string) func(ctx context.Context) ([]byte, error) {
	var n atomic.Int64
	history := turnsBody(storedTurns)
	return func(ctx context.Context) ([]byte, error) {
		id := fmt.Sprintf("bench-stateful-%d", n.Add(1))
		if err := call(ctx, client, http.MethodPost, base+"/contexts", mustJSON(map[string]string{"contextId": id}), http.StatusCreated); err != nil {
			return nil, fmt.Errorf("creating conversation %s: %w", id, err)
		}
		if err := call(ctx, client, http.MethodPatch, base+"/contexts/"+id, history, http.StatusOK); err != nil {
			return nil, fmt.Errorf("storing %d turns in conversation %s: %w", storedTurns, id, err)
		}
		return statefulBody(id), nil
	}
}

// turnsBody is the PATCH /contexts/{id} body adding n turns: a question of
// about 100 bytes and an answer of about 600, as an IDE chat has them.
func turnsBody(n int) []byte {
	msgs := make([]map[string]string, 0, 2*n)
	answer := "The error handling is mostly right: the row scan's sql.ErrNoRows becomes ErrNotFound and " +
		"other errors are wrapped with the id. " + strings.Repeat("Consider also checking rows.Err after the loop. ", 10)
	for i := range n {
		msgs = append(msgs,
			map[string]string{"role": "user", "content": fmt.Sprintf("Question %d: is the error handling in Order and Recent right, and why?", i+1)},
			map[string]string{"role": "assistant", "content": answer})
	}
	return mustJSON(map[string]any{"operation": "ADD_MESSAGE", "messages": msgs})
}

// call sends one JSON request and checks its status.
func call(ctx context.Context, client *http.Client, method, url string, body []byte, want int) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: status %d: %s", method, url, resp.StatusCode, bytes.TrimSpace(msg))
	}
	return nil
}
