package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/llm/llmtest"
)

func TestDefaultDataDir(t *testing.T) {
	tests := []struct {
		name, goos string
		env        map[string]string
		want       string // "" when an error is wanted
		wantErr    string
	}{
		{name: "linux XDG_STATE_HOME", goos: "linux", env: map[string]string{"XDG_STATE_HOME": "/xdg/state", "HOME": "/home/u"}, want: "/xdg/state/agentgw"},
		{name: "linux HOME", goos: "linux", env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.local/state/agentgw"},
		{name: "linux relative XDG_STATE_HOME is ignored", goos: "linux", env: map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"}, want: "/home/u/.local/state/agentgw"},
		{name: "freebsd HOME", goos: "freebsd", env: map[string]string{"HOME": "/usr/home/u"}, want: "/usr/home/u/.local/state/agentgw"},
		{name: "linux nothing set", goos: "linux", env: nil, wantErr: "$HOME is not set: give a data directory with --data or AGENTGW_DATA"},
		{name: "darwin", goos: "darwin", env: map[string]string{"HOME": "/Users/u", "XDG_STATE_HOME": "/xdg/state"}, want: "/Users/u/Library/Application Support/agentgw"},
		{name: "darwin no HOME", goos: "darwin", env: nil, wantErr: "$HOME is not set"},
		{name: "windows", goos: "windows", env: map[string]string{"LocalAppData": `C:\Users\u\AppData\Local`, "HOME": "/home/u"}, want: filepath.Join(`C:\Users\u\AppData\Local`, "agentgw")},
		{name: "windows no LocalAppData", goos: "windows", env: map[string]string{"HOME": "/home/u"}, wantErr: "%LocalAppData% is not set"},
		{name: "plan9", goos: "plan9", env: map[string]string{"home": "/usr/u"}, want: "/usr/u/.local/state/agentgw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := defaultDataDir(tt.goos, envOf(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("defaultDataDir = %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("defaultDataDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestDataDirConfig: the data directory and the memory store layer as the
// other settings do: flags over environment over file.
func TestDataDirConfig(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "conf/gateway.yaml", "data: var/agentgw\n")
	memFile := writeFile(t, dir, "mem.yaml", "store: {memory: true}\n")
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		wantData   string
		wantMemory bool
	}{
		{name: "default: the user's state directory, found at start", wantData: ""},
		{name: "file, relative to it", args: []string{"--config", file}, wantData: filepath.Join(dir, "conf", "var", "agentgw")},
		{name: "AGENTGW_DATA over file", args: []string{"--config", file}, env: map[string]string{"AGENTGW_DATA": "/env/data"}, wantData: "/env/data"},
		{name: "--data over AGENTGW_DATA", args: []string{"--data", "/flag/data"}, env: map[string]string{"AGENTGW_DATA": "/env/data"}, wantData: "/flag/data"},
		{name: "store.memory in the file", args: []string{"--config", memFile}, wantMemory: true},
		{name: "AGENTGW_STORE_MEMORY", env: map[string]string{"AGENTGW_STORE_MEMORY": "true"}, wantMemory: true},
		{name: "AGENTGW_STORE_MEMORY=false over file", args: []string{"--config", memFile}, env: map[string]string{"AGENTGW_STORE_MEMORY": "false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Data != tt.wantData || cfg.Store.Memory != tt.wantMemory {
				t.Errorf("data %q memory %v, want %q %v", cfg.Data, cfg.Store.Memory, tt.wantData, tt.wantMemory)
			}
		})
	}
	for _, bad := range []struct {
		name, want string
		env        map[string]string
	}{
		{"AGENTGW_STORE_MEMORY not a bool", `AGENTGW_STORE_MEMORY: "yes please" is not true or false`, map[string]string{"AGENTGW_STORE_MEMORY": "yes please"}},
		{"memory and a URL", "store.memory is set with store.url or store.path: choose one store", map[string]string{"AGENTGW_STORE_MEMORY": "1", "AGENTGW_STORE_URL": "postgres://db/agentgw"}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			if _, err := loadConfig(t, bad.env); err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("load = %v, want an error containing %q", err, bad.want)
			}
		})
	}
}

// TestNewStoreDefault: with no store configured, the store is agentgw.db in
// the data directory, created 0700 and 0600, and the start logs it; with
// no data directory given, the user's state directory; memory only when
// asked for.
func TestNewStoreDefault(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name    string
		cfg     func(c *Config, data string)
		env     map[string]string
		wantDir func(data string) string // "" for no file
		wantLog string
	}{
		{
			name:    "--data",
			cfg:     func(c *Config, data string) { c.Data = data },
			wantDir: func(data string) string { return data },
			wantLog: `msg="store: SQLite" path=`,
		},
		{
			name:    "the user's state directory",
			cfg:     func(c *Config, data string) {},
			env:     map[string]string{"HOME": home},
			wantDir: func(string) string { return filepath.Join(home, ".local", "state", "agentgw") },
			wantLog: `msg="store: SQLite" path=`,
		},
		{
			name:    "memory",
			cfg:     func(c *Config, data string) { c.Data, c.Store.Memory = data, true },
			wantDir: func(string) string { return "" },
			wantLog: `msg="store: memory (a restart loses paused runs and plan state)"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "new", "data")
			cfg := testConfig(t, "")
			cfg.Data = ""
			tt.cfg(cfg, data)
			var logs syncbuf.Buffer
			st, err := newStore(context.Background(), cfg, envOf(tt.env), "linux", slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer st.close()
			if !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("logs %s, want %s", logs.String(), tt.wantLog)
			}
			dir := tt.wantDir(data)
			if dir == "" {
				if _, err := os.Stat(data); !os.IsNotExist(err) {
					t.Errorf("the memory store made %s: %v", data, err)
				}
				return
			}
			file := filepath.Join(dir, "agentgw.db")
			if !strings.Contains(logs.String(), "path="+file) {
				t.Errorf("logs %s do not name %s", logs.String(), file)
			}
			if runtime.GOOS == "windows" {
				return
			}
			for p, want := range map[string]fs.FileMode{dir: fs.ModeDir | 0o700, file: 0o600} {
				if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
					t.Errorf("%s: %v, want mode %v", p, err, want)
				}
			}
		})
	}
}

// TestNewStoreNoHome: without a data directory and without a home to find
// the state directory in, the start fails saying what to set.
func TestNewStoreNoHome(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.Data = ""
	err := serve(context.Background(), cfg, envOf(nil), slog.New(slog.DiscardHandler), nil)
	if err == nil || err.Error() != "data directory: $HOME is not set: give a data directory with --data or AGENTGW_DATA" {
		t.Errorf("serve = %v", err)
	}
}

// TestRestartLosesNothing: a gateway stopped while a run waits for the
// user's consent, and started again with the same data directory, resumes
// that run: a restart loses nothing. With no state secret set, the one the
// gateway made is kept in the data directory for the next start.
func TestRestartLosesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
	}{
		{"state secret set", map[string]string{"AGENTGW_STATE_SECRET": "the-secret", "PATH": os.Getenv("PATH")}},
		{"no state secret", map[string]string{"PATH": os.Getenv("PATH")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "agents/deployer.yaml", deployerAgent)
			up := llmtest.New(t, llmtest.Respond(deployModel))
			data := filepath.Join(dir, "data")
			start := func(t *testing.T, use func(t *testing.T, base string)) {
				t.Helper()
				cfg := testConfig(t, up.URL())
				cfg.Agents = []string{filepath.Join(dir, "agents")}
				cfg.Data = data
				// A subtest, so that its cleanup stops this gateway before the next starts.
				t.Run("run", func(t *testing.T) { use(t, startGateway(t, cfg, tc.env)) })
			}
			run := func(t *testing.T, body string) answer {
				t.Helper()
				var got answer
				start(t, func(t *testing.T, base string) { got = ask(t, base+"/agents/deployer", body) })
				return got
			}
			consent := run(t, `{"contextId":"conv-1","contextVariables":[{"name":"userInputPrompt","value":"ship it"}]}`).only(t)
			if consent.Action != "confirm" || !strings.HasPrefix(consent.Data.Message, "Deploy the service?") {
				t.Fatalf("consent %s %+v", consent.State, consent.Data)
			}
			resumed := run(t, `{"action":{"action":"confirm","state":`+string(consent.State)+`,"accepted":true}}`)
			if e := resumed.errorFrame(); e != nil || !strings.Contains(resumed.text, `The tool said: {"callId":"call_1","status":"SUCCESS","result":"deployed",`) {
				t.Fatalf("after the restart: %q, error %+v", resumed.text, e)
			}
			// A third start still has the conversation the first began and
			// the second finished.
			start(t, func(t *testing.T, base string) {
				resp, err := http.Get(base + "/contexts/conv-1")
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var c struct {
					Version  int64
					Messages []struct{ Role, Content string }
				}
				if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != 200 {
					t.Fatalf("GET /contexts/conv-1 = %d, %v", resp.StatusCode, err)
				}
				n := len(c.Messages)
				if c.Version != 2 || n < 4 || c.Messages[0] != (struct{ Role, Content string }{"user", "ship it"}) ||
					c.Messages[n-1].Role != "assistant" || !strings.HasPrefix(c.Messages[n-1].Content, "The tool said: ") {
					t.Fatalf("the conversation after two restarts: %+v", c)
				}
			})
		})
	}
}

// TestDataDirSecret: the secret is made once (0600) and read back after;
// an empty file is an error, never an empty key.
func TestDataDirSecret(t *testing.T) {
	dir := t.TempDir()
	first, err := dataDirSecret(dir)
	if err != nil || len(first) != 64 {
		t.Fatalf("dataDirSecret = %q, %v; want 64 hex digits", first, err)
	}
	again, err := dataDirSecret(dir)
	if err != nil || string(again) != string(first) {
		t.Errorf("second start: %q, %v; want %q", again, err, first)
	}
	path := filepath.Join(dir, "state-secret")
	if fi, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && fi.Mode() != 0o600) {
		t.Errorf("%s: %v, want mode 0600", path, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the secret alone", len(entries))
	}
	if err := os.WriteFile(path, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := dataDirSecret(dir); err == nil || !strings.Contains(err.Error(), "is empty: delete it to make a new one") {
		t.Errorf("empty file: %q, %v", b, err)
	}
}
