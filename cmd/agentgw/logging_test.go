package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
)

func TestNewLogger(t *testing.T) {
	tests := []struct {
		name      string
		cfg       LogConfig
		wantJSON  bool
		wantDebug bool
		wantInfo  bool
	}{
		{name: "defaults: JSON off a terminal, info", cfg: LogConfig{}, wantJSON: true, wantInfo: true},
		{name: "auto", cfg: LogConfig{Level: "info", Format: "auto"}, wantJSON: true, wantInfo: true},
		{name: "text", cfg: LogConfig{Level: "info", Format: "text"}, wantJSON: false, wantInfo: true},
		{name: "TEXT upper case", cfg: LogConfig{Format: "TEXT"}, wantJSON: false, wantInfo: true},
		{name: "json debug", cfg: LogConfig{Level: "debug", Format: "json"}, wantJSON: true, wantDebug: true, wantInfo: true},
		{name: "warn drops info", cfg: LogConfig{Level: "warn", Format: "json"}, wantJSON: true},
		{name: "error drops info", cfg: LogConfig{Level: "ERROR"}, wantJSON: true},
		{name: "bad level is info", cfg: LogConfig{Level: "loud"}, wantJSON: true, wantInfo: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := newLogger(tt.cfg, &buf)
			ctx := context.Background()
			if got := log.Enabled(ctx, slog.LevelDebug); got != tt.wantDebug {
				t.Errorf("debug enabled = %v, want %v", got, tt.wantDebug)
			}
			if got := log.Enabled(ctx, slog.LevelInfo); got != tt.wantInfo {
				t.Errorf("info enabled = %v, want %v", got, tt.wantInfo)
			}
			log.Error("boom", "k", "v")
			line := strings.TrimSpace(buf.String())
			var m map[string]any
			isJSON := json.Unmarshal([]byte(line), &m) == nil
			if isJSON != tt.wantJSON {
				t.Fatalf("output %q: JSON = %v, want %v", line, isJSON, tt.wantJSON)
			}
			if isJSON && (m["msg"] != "boom" || m["k"] != "v" || m["level"] != "ERROR") {
				t.Errorf("JSON record = %v", m)
			}
			if !isJSON && !strings.Contains(line, "level=ERROR msg=boom k=v") {
				t.Errorf("text record = %q", line)
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is not a terminal")
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
	// A regular *os.File in auto mode gets JSON.
	newLogger(LogConfig{Format: "auto"}, f).Info("hello")
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(bytes.TrimSpace(data)) {
		t.Errorf("auto format on a file wrote %q, want JSON", data)
	}
}
