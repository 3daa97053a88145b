package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// checkRun runs agentgw args with no environment, in which dir's path is
// shown as "DIR".
func checkRun(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	clean := func(s string) string { return strings.ReplaceAll(s, dir+string(filepath.Separator), "DIR/") }
	return code, clean(out.String()), clean(errOut.String())
}

func TestCheckConfig(t *testing.T) {
	tests := []struct {
		name string
		file string
		code int
		out  string // exact stdout
		err  string // exact stderr
	}{
		{name: "valid", file: "upstream:\n  url: http://127.0.0.1:9\nserver:\n  keepAlive: 5s\n", out: "DIR/gw.yaml: ok\n"},
		{name: "empty", file: "# nothing\n", out: "DIR/gw.yaml: ok\n"},
		{name: "unknown nested key", file: "upstream:\n  urll: http://x\n", code: 2,
			err: "DIR/gw.yaml:2:3: upstream.urll: unknown key; did you mean \"url\"?\n"},
		{name: "unknown top-level key with no near one", file: "addr: \":1\"\nbogus: 1\n", code: 2,
			err: "DIR/gw.yaml:2:1: bogus: unknown key\n"},
		{name: "key in a list item", file: "schedules:\n  - name: a\n    evry: 1m\n", code: 2,
			err: "DIR/gw.yaml:3:5: schedules[0].evry: unknown key; did you mean \"every\"?\n"},
		{name: "key in a knowledge base", file: "knowledgeBases:\n  - id: k\n    sources:\n      - dir: .\n        pathz: [x]\n", code: 2,
			err: "DIR/gw.yaml:5:9: knowledgeBases[0].sources[0].pathz: unknown key; did you mean \"paths\"?\n"},
		{name: "case differs", file: "server:\n  keepalive: 1s\n", code: 2,
			err: "DIR/gw.yaml:2:3: server.keepalive: unknown key; did you mean \"keepAlive\"?\n"},
		{name: "every unknown key at once", file: "server:\n  terminatr: \"[DONE]\"\nlog:\n  levl: debug\n", code: 2,
			err: "DIR/gw.yaml:2:3: server.terminatr: unknown key; did you mean \"terminator\"?\n" +
				"DIR/gw.yaml:4:3: log.levl: unknown key; did you mean \"level\"?\n"},
		{name: "invalid value", file: "upstream: {auth: basic}\n", code: 2,
			err: "invalid configuration: upstream.auth: \"basic\" must be forward or key\n"},
		{name: "values of the wrong kind", file: "upstream: 5\nserver:\n  bodyLimit: lots\nagents: here\n", code: 2,
			err: "DIR/gw.yaml:1: \"5\" is a number, where a section (keys and values) is expected\n" +
				"DIR/gw.yaml:3: \"lots\" is text, where a whole number is expected\n" +
				"DIR/gw.yaml:4: \"here\" is text, where a list is expected\n"},
		{name: "invalid schedule", file: "schedules:\n  - name: a\n    agent: x\n    command: y\n    every: 1ms\n", code: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "gw.yaml", tt.file)
			code, out, errOut := checkRun(t, dir, "check", "--config", path)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if out != tt.out {
				t.Errorf("stdout %q, want %q", out, tt.out)
			}
			if tt.err != "" && errOut != tt.err {
				t.Errorf("stderr:\n%s\nwant:\n%s", errOut, tt.err)
			}
			if tt.code != 0 && !strings.Contains(errOut, "gw.yaml") && !strings.Contains(errOut, "invalid configuration") {
				t.Errorf("stderr %q names no file", errOut)
			}
		})
	}
}

func TestCheckUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "agentgw check: no config to check: give --config FILE (or set AGENTGW_CONFIG)\n"},
		{[]string{"check", "--config", "a.yaml", "extra"}, "agentgw check: unknown command \"extra\" for \"agentgw check\"\n"},
	} {
		code, _, errOut := checkRun(t, t.TempDir(), tc.args...)
		if code != 2 || !strings.HasPrefix(errOut, tc.want) || !strings.Contains(errOut, "Usage: agentgw check --config FILE [flags]\n") {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut)
		}
	}
}

// TestServeUnknownKey: serve reports an unknown key as check does, not
// with Go type names.
func TestServeUnknownKey(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "gw.yaml", "upstream:\n  urll: http://x\n")
	code, _, errOut := checkRun(t, dir, "serve", "--config", path)
	want := "agentgw: DIR/gw.yaml:2:3: upstream.urll: unknown key; did you mean \"url\"?\n"
	if code != 2 || errOut != want {
		t.Errorf("exit %d, stderr %q, want 2, %q", code, errOut, want)
	}
	if strings.Contains(errOut, "UpstreamConfig") {
		t.Errorf("stderr names a Go type: %q", errOut)
	}
}

// TestCheckPrint: --print writes the effective config with its defaults,
// passwords redacted, in a form check accepts again.
func TestCheckPrint(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "gw.yaml", "upstream:\n  url: https://u:sekret@api.example/v1\nstore:\n  url: postgres://me:hunter2@db/x\nserver:\n  keepAlive: 5s\n")
	code, out, errOut := checkRun(t, dir, "check", "--config", path, "--print")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"    url: https://u:xxxxx@api.example/v1 # file\n",
		"    url: postgres://me:xxxxx@db/x # file\n",
		"    keepAlive: 5s # file\n",   // a duration
		"addr: \"\"\n",                 // the default: no comment
		"    keyEnv: OPENAI_API_KEY\n", // a default
		"    retryBackoff: 500ms\n",    // a default
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"sekret", "hunter2"} {
		if strings.Contains(out, secret) {
			t.Errorf("output shows the password %q", secret)
		}
	}
	// A value the environment sets says so, over the file's.
	var envOut bytes.Buffer
	getenv := func(k string) string { return map[string]string{"AGENTGW_ADDR": "127.0.0.1:7777"}[k] }
	if code := run([]string{"check", "--config", path, "--print"}, getenv, strings.NewReader(""), &envOut, io.Discard); code != 0 ||
		!strings.Contains(envOut.String(), "addr: 127.0.0.1:7777 # env\n") {
		t.Errorf("with AGENTGW_ADDR: exit %d\n%s", code, envOut.String())
	}
	again := writeFile(t, dir, "printed.yaml", out)
	if code, _, errOut := checkRun(t, dir, "check", "--config", again); code != 0 {
		t.Errorf("the printed config does not check: exit %d, %s", code, errOut)
	}
}
