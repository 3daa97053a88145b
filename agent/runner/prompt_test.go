package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// TestPromptGolden runs each testdata/prompt/*.txtar: its "agent" and
// "request" sections (and optional "budget", a JSON BudgetConfig) go in;
// the body the upstream receives ("upstream") and what the budget cut
// ("cut") come out, compared with the file (rewritten with -update).
func TestPromptGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/prompt/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ar := parseArchive(string(data))
			var cfg RunnerConfig
			if b := ar.sections["budget"]; b != "" {
				if err := json.Unmarshal([]byte(b), &cfg.Budget); err != nil {
					t.Fatal(err)
				}
			}
			up := hiModel(t)
			r, logs := testRunner(t, ar.sections["agent"], up, cfg)
			rec, err := runRequest(t, r, ar.sections["request"])
			if err != nil {
				t.Fatal(err)
			}
			if rec.Transcript() != "Hi there" {
				t.Fatalf("transcript %q; frames %+v", rec.Transcript(), rec.Frames())
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, up.Last(t).Body, "", "  "); err != nil {
				t.Fatal(err)
			}
			out := ar
			out.sections = map[string]string{}
			for k, v := range ar.sections {
				out.sections[k] = v
			}
			out.set("upstream", pretty.String())
			out.set("cut", cutLines(t, logs.Bytes()))
			// The file is the case and its expectation at once.
			golden.Check(t, f, []byte(out.format()))
		})
	}
}

// cutLines extracts the "cut" entries of the budget log line.
func cutLines(t *testing.T, logs []byte) string {
	var lines []string
	for _, l := range bytes.Split(logs, []byte("\n")) {
		var entry struct {
			Msg string   `json:"msg"`
			Cut []string `json:"cut"`
		}
		if json.Unmarshal(l, &entry) == nil && strings.HasPrefix(entry.Msg, "prompt over budget") {
			lines = append(lines, entry.Cut...)
		}
	}
	return strings.Join(lines, "\n")
}

func TestBudgetContextLength(t *testing.T) {
	b := BudgetConfig{DefaultContextLength: 1000, Models: map[string]int{"gpt-4o*": 128000, "gpt-4o-mini": 64000, "x?": 5}}
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o-mini", 64000},
		{"gpt-4o-2024", 128000},
		{"xy", 5},
		{"other", 1000},
		{"", 1000},
	}
	for _, tc := range tests {
		if got := b.contextLength(tc.model); got != tc.want {
			t.Errorf("contextLength(%q) = %d, want %d", tc.model, got, tc.want)
		}
	}
	if got := (BudgetConfig{}).contextLength("m"); got != 32768 {
		t.Errorf("default context length %d", got)
	}
}

// TestBudgetPatternTies: of two matching patterns, the longer wins, and of
// two as long, the first in alphabetical order, every time (the map's
// order is random), with the patterns ordered once or on each call.
func TestBudgetPatternTies(t *testing.T) {
	models := map[string]int{"gpt-*": 1, "*-4o": 2, "g*-4?": 3, "gpt-4o*": 4, "*": 5}
	tests := []struct {
		model string
		want  int
	}{
		{"gpt-4o", 4}, // "gpt-4o*" is the longest that matches
		{"gpt-4x", 3}, // "g*-4?" and "gpt-*" are as long: "g*-4?" comes first
		{"abc-4o", 2}, // "*-4o", then "*"
		{"zzz", 5},    // only "*"
	}
	compiled := NewRunner(nil, RunnerConfig{Budget: BudgetConfig{Models: models}}).cfg.Budget
	for range 20 {
		for _, b := range []BudgetConfig{{Models: models}, compiled} {
			for _, tc := range tests {
				if got := b.contextLength(tc.model); got != tc.want {
					t.Fatalf("contextLength(%q) = %d, want %d", tc.model, got, tc.want)
				}
			}
		}
	}
}
