package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// editorFile is the open file of every benchmark request: a realistic Go
// source of about 2 KB.
const editorFile = `package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned when no order has the given id.
var ErrNotFound = errors.New("store: order not found")

// Order is one customer order.
type Order struct {
	ID        int64
	Customer  string
	Total     int64 // cents
	CreatedAt time.Time
}

// Store reads and writes orders.
type Store struct {
	db      *sql.DB
	timeout time.Duration
}

// New returns a Store over db.
func New(db *sql.DB, timeout time.Duration) *Store {
	return &Store{db: db, timeout: timeout}
}

// Order returns the order with the given id.
func (s *Store) Order(ctx context.Context, id int64) (*Order, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	row := s.db.QueryRowContext(ctx, "SELECT id, customer, total, created_at FROM orders WHERE id = $1", id)
	var o Order
	if err := row.Scan(&o.ID, &o.Customer, &o.Total, &o.CreatedAt); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("reading order %d: %w", id, err)
	}
	return &o, nil
}

// Recent returns the orders created since t, newest first.
func (s *Store) Recent(ctx context.Context, t time.Time, limit int) ([]Order, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, "SELECT id, customer, total, created_at FROM orders WHERE created_at >= $1 ORDER BY created_at DESC LIMIT $2", t, limit)
	if err != nil {
		return nil, fmt.Errorf("listing orders: %w", err)
	}
	defer rows.Close()
	var out []Order
	for rows.Next() {
		var o Order
		if err := rows.Scan(&o.ID, &o.Customer, &o.Total, &o.CreatedAt); err != nil {
			return nil, fmt.Errorf("scanning order: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
`

// The selection: three lines inside Order.
const (
	selStart    = 40
	selEnd      = 42
	userPrompt  = "is the error handling here right?"
	systemText  = "You are a senior software engineer helping a colleague inside their IDE.\nAnswer concisely and show code in fenced blocks.\nThe open file is store/store.go (go)."
	editorPath  = "store/store.go"
	editorLang  = "go"
	visibleFrom = 30
	visibleTo   = 55
)

// lineSpan returns lines from..to (1-based, inclusive) of text, joined.
func lineSpan(text string, from, to int) string {
	lines := strings.Split(text, "\n")
	return strings.Join(lines[from-1:to], "\n")
}

// gatewayBody is the agentgw request: activeEditor (the file, a 3-line
// selection, the visible range) and userInputPrompt.
func gatewayBody() []byte {
	return mustJSON(gatewayRequest())
}

// statefulBody is the gateway request continuing the conversation id: the
// latency scenario's request with its contextId.
func statefulBody(id string) []byte {
	req := gatewayRequest()
	req["contextId"] = id
	return mustJSON(req)
}

// gatewayRequest is the agentgw request as a map, for the bodies above.
func gatewayRequest() map[string]any {
	sel := lineSpan(editorFile, selStart, selEnd)
	lastLine := lineSpan(editorFile, selEnd, selEnd)
	offset := strings.Index(editorFile, sel) + len(sel)
	editor := map[string]any{
		"filePath": editorPath, "language": editorLang, "content": editorFile, "cursorOffset": offset,
		"startLine": selStart, "startColumn": 1, "endLine": selEnd, "endColumn": len(lastLine) + 1,
		"selectedRanges": []map[string]any{{
			"content": sel, "startLine": selStart, "startColumn": 1, "endLine": selEnd, "endColumn": len(lastLine) + 1,
		}},
		"visibleRange": map[string]any{
			"content": lineSpan(editorFile, visibleFrom, visibleTo), "startLine": visibleFrom, "startColumn": 1,
			"endLine": visibleTo, "endColumn": 1,
		},
	}
	return map[string]any{"contextVariables": []map[string]any{
		{"name": "activeEditor", "value": editor},
		{"name": "userInputPrompt", "value": userPrompt},
	}}
}

// chatBody is the OpenAI chat request of the direct and proxy paths, of a
// size similar to the gateway's request: a system message and a user
// message holding the whole file and the selection.
func chatBody() []byte {
	return chatBodyFor("gpt-4o-mini")
}

// openaiModel is the agent command the OpenAI endpoint path names as its
// model: bench.yaml's chat command.
const openaiModel = "bench/chat"

// chatBodyFor is chatBody naming model.
func chatBodyFor(model string) []byte {
	sel := lineSpan(editorFile, selStart, selEnd)
	user := fmt.Sprintf("Review this go from store.go:\n```go\n%s\n```\nIt is part of:\n```go\n%s```\nFocus: %s", sel, editorFile, userPrompt)
	return mustJSON(map[string]any{
		"model":  model,
		"stream": true,
		"messages": []map[string]string{
			{"role": "system", "content": systemText},
			{"role": "user", "content": user},
		},
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encoding a request body: %v", err))
	}
	return b
}
