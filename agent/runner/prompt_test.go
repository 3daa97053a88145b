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
// "request" sections (and optional "budget", a JSON prompt.Budget) go in;
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
