package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentgw/agentgw/chat/chattest"
)

// loadConfig parses args as the gateway flags and loads the configuration.
func loadConfig(t *testing.T, env map[string]string, args ...string) (*Config, error) {
	t.Helper()
	g := newGatewayFlags(pflag.NewFlagSet("test", pflag.ContinueOnError), allGatewayFlags)
	if err := g.fs.Parse(args); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return g.load(envOf(env))
}

// writeFile writes data to name under dir and returns its path.
var writeFile = chattest.WriteFile

func TestDefaultConfig(t *testing.T) {
	cfg, err := loadConfig(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"addr (none: listenAddr picks loopback, or every interface with auth)", cfg.Addr, ""},
		{"agents", len(cfg.Agents), 0},
		{"upstream.url (none configured: the built-in model)", cfg.Upstream.URL, "builtin:echo"},
		{"upstream.builtinPace", time.Duration(cfg.Upstream.BuiltinPace), 20 * time.Millisecond},
		{"upstream.auth", cfg.Upstream.Auth, "forward"},
		{"upstream.keyEnv", cfg.Upstream.KeyEnv, "OPENAI_API_KEY"},
		{"upstream.firstByteTimeout", time.Duration(cfg.Upstream.FirstByteTimeout), time.Minute},
		{"upstream.retries", cfg.Upstream.Retries, 2},
		{"upstream.retryBackoff", time.Duration(cfg.Upstream.RetryBackoff), 500 * time.Millisecond},
		{"upstream.retryMaxBackoff", time.Duration(cfg.Upstream.RetryMaxBackoff), 10 * time.Second},
		{"upstream.fallbackModels", cfg.Upstream.FallbackModels, []string{}},
		{"server.keepAlive", time.Duration(cfg.Server.KeepAlive), 15 * time.Second},
		{"server.bodyLimit", cfg.Server.BodyLimit, int64(16 << 20)},
		{"server.terminator", cfg.Server.Terminator, "[DONE]"},
		{"state.ttl", time.Duration(cfg.State.TTL), 24 * time.Hour},
		{"budget.models[gpt-4o*]", cfg.Budget.Models["gpt-4o*"], 128000},
		{"log.format", cfg.Log.Format, "auto"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "conf/gateway.yaml", `
addr: "127.0.0.1:9000"
agents: [defs, /abs/agents]
upstream:
  url: http://file.example/v1
  defaultModel: file-model
server:
  keepAlive: 3s
  shutdownGrace: 1m30s
`)
	other := writeFile(t, dir, "other.yaml", "addr: \":7000\"\n")
	list := strings.Join([]string{"/env/a", "/env/b"}, string(os.PathListSeparator))
	tests := []struct {
		name         string
		env          map[string]string
		args         []string
		wantAddr     string
		wantAgents   []string
		wantUpstream string
		wantModel    string
	}{
		{
			name:     "embedded defaults",
			wantAddr: "", wantModel: "gpt-4o-mini", wantUpstream: "builtin:echo",
		},
		{
			name: "config file by flag", args: []string{"--config", file},
			wantAddr:     "127.0.0.1:9000",
			wantAgents:   []string{filepath.Join(dir, "conf", "defs"), "/abs/agents"},
			wantUpstream: "http://file.example/v1", wantModel: "file-model",
		},
		{
			name: "config file by AGENTGW_CONFIG", env: map[string]string{"AGENTGW_CONFIG": file},
			wantAddr:     "127.0.0.1:9000",
			wantAgents:   []string{filepath.Join(dir, "conf", "defs"), "/abs/agents"},
			wantUpstream: "http://file.example/v1", wantModel: "file-model",
		},
		{
			name: "--config wins over AGENTGW_CONFIG", env: map[string]string{"AGENTGW_CONFIG": file},
			args: []string{"--config", other}, wantAddr: ":7000", wantModel: "gpt-4o-mini", wantUpstream: "builtin:echo",
		},
		{
			name: "environment over file",
			env: map[string]string{"AGENTGW_CONFIG": file, "AGENTGW_ADDR": ":8001", "AGENTGW_AGENTS": list,
				"AGENTGW_UPSTREAM_URL": "http://env.example/v1", "AGENTGW_DEFAULT_MODEL": "env-model"},
			wantAddr: ":8001", wantAgents: []string{"/env/a", "/env/b"},
			wantUpstream: "http://env.example/v1", wantModel: "env-model",
		},
		{
			name: "flags over environment",
			env: map[string]string{"AGENTGW_CONFIG": file, "AGENTGW_ADDR": ":8001", "AGENTGW_AGENTS": list,
				"AGENTGW_UPSTREAM_URL": "http://env.example/v1"},
			args:     []string{"--addr", ":8002", "--agents", "x", "--agents", "y/z", "--upstream", "http://flag.example"},
			wantAddr: ":8002", wantAgents: []string{"x", "y/z"},
			wantUpstream: "http://flag.example", wantModel: "file-model",
		},
		{
			name: "an unset flag leaves the environment alone",
			env:  map[string]string{"AGENTGW_ADDR": ":8001"}, args: []string{"--upstream", "http://flag.example"},
			wantAddr: ":8001", wantUpstream: "http://flag.example", wantModel: "gpt-4o-mini",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Addr != tt.wantAddr {
				t.Errorf("addr = %q, want %q", cfg.Addr, tt.wantAddr)
			}
			if len(cfg.Agents) != 0 || len(tt.wantAgents) != 0 {
				if !reflect.DeepEqual(cfg.Agents, tt.wantAgents) {
					t.Errorf("agents = %q, want %q", cfg.Agents, tt.wantAgents)
				}
			}
			if cfg.Upstream.URL != tt.wantUpstream {
				t.Errorf("upstream.url = %q, want %q", cfg.Upstream.URL, tt.wantUpstream)
			}
			if cfg.Upstream.DefaultModel != tt.wantModel {
				t.Errorf("upstream.defaultModel = %q, want %q", cfg.Upstream.DefaultModel, tt.wantModel)
			}
		})
	}
}

// TestConfigFilePaths: the relative paths a config file gives are
// relative to the file; absolute and empty ones are kept.
func TestConfigFilePaths(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "conf/gw.yaml", `
agents: [defs, /abs/agents]
tools: {files: [tools.yaml], workRoots: [.., /abs/root]}
git:
  cacheDir: cache
  repositories: [{name: rel, url: https://example.com/a.git, path: repos/a}, {name: empty, url: https://example.com/b.git}]
store: {path: state/agentgw.db}
`)
	cfg, err := loadConfig(t, nil, "--config", file)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "conf")
	checks := []struct {
		name      string
		got, want any
	}{
		{"agents", cfg.Agents, []string{filepath.Join(conf, "defs"), "/abs/agents"}},
		{"tools.files", cfg.Tools.Files, []string{filepath.Join(conf, "tools.yaml")}},
		{"tools.workRoots", cfg.Tools.WorkRoots, []string{dir, "/abs/root"}},
		{"git.cacheDir", cfg.Git.CacheDir, filepath.Join(conf, "cache")},
		{"git.repositories[0].path", cfg.Git.Repositories[0].Path, filepath.Join(conf, "repos", "a")},
		{"git.repositories[1].path", cfg.Git.Repositories[1].Path, ""},
		{"store.path", cfg.Store.Path, filepath.Join(conf, "state", "agentgw.db")},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestConfigFileValues(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "gw.yaml", `
publicURL: https://gw.example.com
upstream: {auth: key, keyEnv: MY_KEY, idleTimeout: 15s}
server: {keepAlive: 250ms, terminator: "[Done]", shutdownGrace: 1m30s}
state: {ttl: 2h}
budget: {models: {"mine*": 1000}}
log: {level: debug, format: json}
`)
	cfg, err := loadConfig(t, nil, "--config", file)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"publicURL", cfg.PublicURL, "https://gw.example.com"},
		{"upstream.auth", cfg.Upstream.Auth, "key"},
		{"upstream.keyEnv", cfg.Upstream.KeyEnv, "MY_KEY"},
		{"upstream.idleTimeout", time.Duration(cfg.Upstream.IdleTimeout), 15 * time.Second},
		{"upstream.firstByteTimeout kept", time.Duration(cfg.Upstream.FirstByteTimeout), time.Minute},
		{"server.keepAlive", time.Duration(cfg.Server.KeepAlive), 250 * time.Millisecond},
		{"server.terminator", cfg.Server.Terminator, "[Done]"},
		{"server.shutdownGrace", time.Duration(cfg.Server.ShutdownGrace), 90 * time.Second},
		{"server.bodyLimit kept", cfg.Server.BodyLimit, int64(16 << 20)},
		{"state.ttl", time.Duration(cfg.State.TTL), 2 * time.Hour},
		{"budget.models added", cfg.Budget.Models["mine*"], 1000},
		{"budget.models kept", cfg.Budget.Models["gpt-4o*"], 128000},
		{"log.level", cfg.Log.Level, "debug"},
		{"log.format", cfg.Log.Format, "json"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestConfigFileEmpty(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"empty.yaml": "", "comments.yaml": "# nothing set\n", "doc.yaml": "---\n"} {
		t.Run(name, func(t *testing.T) {
			cfg, err := loadConfig(t, nil, "--config", writeFile(t, dir, name, data))
			if err != nil {
				t.Fatalf("an empty config file must be fine: %v", err)
			}
			if cfg.Upstream.KeyEnv != "OPENAI_API_KEY" || cfg.Upstream.Auth != "forward" {
				t.Errorf("defaults lost: keyEnv %q, auth %q", cfg.Upstream.KeyEnv, cfg.Upstream.Auth)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		file string // config file content; "" for none
		env  map[string]string
		want []string // substrings of the error
	}{
		{name: "unknown top-level key", file: "adr: \":1\"\n", want: []string{`gw.yaml:1:1: adr: unknown key; did you mean "addr"?`}},
		{name: "unknown nested key", file: "server:\n  keepalive: 1s\n", want: []string{`gw.yaml:2:3: server.keepalive: unknown key; did you mean "keepAlive"?`}},
		{name: "bad duration", file: "server:\n  keepAlive: soon\n", want: []string{"line 2", `"soon" is not a duration`}},
		{name: "bad auth", file: "upstream: {auth: basic}\n", want: []string{`upstream.auth: "basic" must be forward or key`}},
		{name: "bad terminator", file: "server: {terminator: \"[END]\"}\n", want: []string{`server.terminator: "[END]"`}},
		{name: "bad log format", file: "log: {format: xml}\n", want: []string{`log.format: "xml" must be auto, text or json`}},
		{name: "negative body limit", file: "server: {bodyLimit: -1}\n", want: []string{"server.bodyLimit must not be negative"}},
		{name: "retries out of range", file: "upstream: {retries: 11}\n", want: []string{"upstream.retries: 11 must be between 0 and 10"}},
		{name: "negative builtin pace", file: "upstream: {builtinPace: -1ms}\n", want: []string{"upstream.builtinPace must not be negative"}},
		{name: "negative retry backoff", file: "upstream: {retryBackoff: -1s}\n", want: []string{"upstream.retryBackoff and upstream.retryMaxBackoff must not be negative"}},
		{name: "empty fallback model", file: "upstream: {fallbackModels: [a, \"\"]}\n", want: []string{"upstream.fallbackModels[1] is empty"}},
		{name: "webhookAllow entry with userinfo", file: "scheduler: {webhookAllow: [\"http://a@127.0.0.1:1/\"]}\n",
			want: []string{"scheduler.webhookAllow", "userinfo"}},
		{name: "httpAllow entry without a scheme", file: "tools: {httpAllow: [\"127.0.0.1:9/api\"]}\n", want: []string{"tools.httpAllow", "127.0.0.1:9/api"}},
		{name: "two problems at once", file: "upstream: {auth: basic}\nlog: {format: xml}\n", want: []string{"upstream.auth", "log.format"}},
		{name: "syntax error", file: "addr: [\n", want: []string{"gw.yaml"}},
		{name: "bad auth from the environment", env: map[string]string{"AGENTGW_UPSTREAM_AUTH": "magic"}, want: []string{`upstream.auth: "magic"`}},
		{name: "bad log format from the environment", env: map[string]string{"AGENTGW_LOG_FORMAT": "xml"}, want: []string{"log.format"}},
		{name: "bad bool from the environment", env: map[string]string{"AGENTGW_ALLOW_REQUEST_DEFINITIONS": "maybe"}, want: []string{"AGENTGW_ALLOW_REQUEST_DEFINITIONS", "maybe"}},
		{name: "store.url not postgres", file: "store: {url: \"mysql://u:hunter2@db/x\"}\n", want: []string{"store.url: mysql://u:xxxxx@db/x must be a postgres:// URL"}},
		{name: "store.url and store.path", file: "store: {path: s.db}\n", env: map[string]string{"AGENTGW_STORE_URL": "postgres://db/x"},
			want: []string{"store.url and store.path are both set"}},
		{name: "missing file", env: map[string]string{"AGENTGW_CONFIG": filepath.Join(dir, "missing.yaml")}, want: []string{"reading config", "missing.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args []string
			if tt.file != "" {
				args = []string{"--config", writeFile(t, t.TempDir(), "gw.yaml", tt.file)}
			}
			_, err := loadConfig(t, tt.env, args...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestConfigEnvironmentBools(t *testing.T) {
	cfg, err := loadConfig(t, map[string]string{"AGENTGW_ALLOW_REQUEST_DEFINITIONS": "true",
		"AGENTGW_PUBLIC_URL": "https://pub.example", "AGENTGW_LOG_LEVEL": "debug", "AGENTGW_UPSTREAM_AUTH": "key"})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.AllowRequestDefinitions || cfg.PublicURL != "https://pub.example" || cfg.Log.Level != "debug" || cfg.Upstream.Auth != "key" {
		t.Errorf("environment not applied: %+v", cfg)
	}
}

func TestServeConfigErrorExits2(t *testing.T) {
	code, _, stderr := runCLI(t, map[string]string{"AGENTGW_UPSTREAM_AUTH": "magic"}, "serve")
	if code != 2 || !strings.Contains(stderr, "agentgw: invalid configuration: upstream.auth") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestConfigStoreURL: store.url comes from the file, AGENTGW_STORE_URL
// wins over it.
func TestConfigStoreURL(t *testing.T) {
	file := writeFile(t, t.TempDir(), "gw.yaml", "store: {url: \"postgres://file/db\"}\n")
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"AGENTGW_CONFIG": file}, "postgres://file/db"},
		{map[string]string{"AGENTGW_CONFIG": file, "AGENTGW_STORE_URL": "postgresql://env/db"}, "postgresql://env/db"},
		{nil, ""},
	} {
		cfg, err := loadConfig(t, tc.env)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Store.URL != tc.want {
			t.Errorf("env %v: store.url = %q, want %q", tc.env, cfg.Store.URL, tc.want)
		}
	}
}
