package chat

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
	"github.com/agentgw/agentgw/internal/golden"
)

// tourDefinition declares different package file counts for default and
// open, so that a follow-up request shows which strategy it was collected
// for; version collects nothing.
const tourDefinition = `{"name":"tour","commands":[
 {"name":"default","contextVariableCollectionStrategy":{"type":"specify","contextVariables":[{"name":"userInputPrompt"},{"name":"packageFiles","resolveOptions":{"maximumNumber":1}}]}},
 {"name":"open","contextVariableCollectionStrategy":{"type":"specify","contextVariables":[{"name":"packageFiles","resolveOptions":{"maximumNumber":2}}]}},
 {"name":"version"}]}`

// The nodes of tourTree, as sent; feedback must echo them byte for byte.
const (
	srcNode    = `{"id":"src","pId":"0","type":"dir","name":"src","description":"sources","labels":[]}`
	mainNode   = `{"id":"main","pId":"src","type":"file","name":"main.go","path":"cmd/main.go","labels":["go"],"size":1024}`
	readmeNode = `{"id":"readme","pId":"0","type":"doc","name":"README.md"}`
	applyState = `{"n":[1,true,null],"s":"a<b"}`
)

// tourAnswer has every kind of choice, after an unreadable and an unknown
// action that are shown and skipped.
var tourAnswer = textFrame("Pick one.") +
	actionFrame(`{"action":`) +
	actionFrame(`{"action":"diff","data":{}}`) +
	actionFrame(`{"action":"confirm","state":"s-open","data":{"title":"Open","message":"Open the file","command":"open"}}`) +
	actionFrame(`{"action":"confirm","state":"s-explain","data":{"title":"Explain","message":"Explain it","prompt":"explain this"}}`) +
	actionFrame(`{"action":"confirm","state":`+applyState+`,"data":{"title":"Apply","message":"Apply the fix?"}}`) +
	actionFrame(`{"action":"tree","state":42,"data":{"treeId":"files","rootPId":"0","nodes":[`+srcNode+`,`+mainNode+`,`+readmeNode+`],"nodeActions":[`+
		`{"nodeType":"dir","nodeAction":"expand"},`+
		`{"nodeType":"file","nodeAction":"click","promptByNodeProperty":"path"},`+
		`{"nodeType":"file","nodeAction":"expand","command":"open"},`+
		`{"nodeType":"doc","nodeAction":"click","prompt":"summarize"},`+
		`{"nodeType":"doc","nodeAction":"expand","promptByNodeProperty":"description"}]}}`) +
	stopFrame + doneFrame

// plainAnswer ends a conversation: text, no actions.
var plainAnswer = textFrame("Done.") + stopFrame + doneFrame

// newTourDir is a workspace with two package files and no git.
func newTourDir(t *testing.T) string {
	dir := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module example.com/tour\n", "package.json": "{}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// packagePaths lists the package files a request carries.
func packagePaths(t *testing.T, r chattest.Request) []string {
	var files []struct{ Filepath string }
	r.Value(t, "packageFiles", &files)
	var out []string
	for _, f := range files {
		out = append(out, f.Filepath)
	}
	return out
}

func TestChatChoices(t *testing.T) {
	dir := newTourDir(t)
	tests := []struct {
		name, stdin string
		tail        string // stdout after the choices
		command     string // the follow-up's "command" JSON, "" when absent
		prompt      string // its userInputPrompt, "" when absent
		packages    []string
		action      string // its "action" JSON, "" when absent
	}{
		{name: "confirm with a command", stdin: "1\n", tail: "> 1\nDone.\n",
			command: `"open"`, packages: []string{"go.mod", "package.json"}},
		{name: "confirm with a prompt", stdin: "2\n", tail: "> 2\nDone.\n",
			prompt: "explain this", packages: []string{"go.mod"}},
		{name: "confirm accepted", stdin: "3\n", tail: "> 3\nDone.\n",
			action: `{"action":"confirm","state":` + applyState + `,"accepted":true}`},
		{name: "confirm dismissed", stdin: " 4 \n", tail: ">  4 \nDone.\n",
			action: `{"action":"confirm","state":` + applyState + `,"accepted":false}`},
		{name: "tree feedback", stdin: "5\n", tail: "> 5\nDone.\n",
			action: `{"action":"tree","state":42,"treeId":"files","nodeId":"src","nodeAction":"expand","node":` + srcNode + `}`},
		{name: "a node's extra property as the prompt", stdin: "6\n", tail: "> 6\nDone.\n",
			prompt: "cmd/main.go", packages: []string{"go.mod"}},
		{name: "a node's command", stdin: "7\r\n", tail: "> 7\nDone.\n",
			command: `"open"`, packages: []string{"go.mod", "package.json"}},
		{name: "a node's prompt", stdin: "8", tail: "> 8\nDone.\n",
			prompt: "summarize", packages: []string{"go.mod"}},
		{name: "a node without the property asked, then another", stdin: "9\n0\nx\n8\n",
			tail: "> 9\n  README.md has no \"description\" to ask; pick another\n" +
				"> 0\n  \"0\" is not a choice: type 1 to 9, or q to quit\n" +
				"> x\n  \"x\" is not a choice: type 1 to 9, or q to quit\n" +
				"> 8\nDone.\n",
			prompt: "summarize", packages: []string{"go.mod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, rec := newScriptedGateway(t, tourDefinition, tourAnswer, plainAnswer)
			code, stdout, stderr := runChat(t, tt.stdin, "--url", url, "--agent", "tour", "--dir", dir, "--interactive", "first", "question")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			choices := readGolden(t, "choices.golden")
			if !strings.HasPrefix(stdout, choices) || stdout[len(choices):] != tt.tail {
				t.Errorf("stdout:\n%s\nwant testdata/choices.golden, then:\n%s", stdout, tt.tail)
			}
			reqs := rec.All()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			first, got := reqs[0], reqs[1]
			if got.Agent != "tour" {
				t.Errorf("agent %q", got.Agent)
			}
			if tt.action != "" {
				checkFeedback(t, first, got, tt.action)
				return
			}
			if got.Member("command") != tt.command || got.Member("action") != "" {
				t.Errorf("command %s action %s, want command %s and no action", got.Member("command"), got.Member("action"), tt.command)
			}
			var prompt string
			if has := got.Value(t, "userInputPrompt", &prompt); has != (tt.prompt != "") || prompt != tt.prompt {
				t.Errorf("userInputPrompt %q (present %v), want %q", prompt, has, tt.prompt)
			}
			if paths := packagePaths(t, got); !reflect.DeepEqual(paths, tt.packages) {
				t.Errorf("packageFiles %q, want %q (the command's own strategy)", paths, tt.packages)
			}
		})
	}
}

// checkFeedback checks that got is first plus the action object action.
func checkFeedback(t *testing.T, first, got chattest.Request, action string) {
	t.Helper()
	if a := got.Member("action"); a != action {
		t.Errorf("action:\n%s\nwant:\n%s", a, action)
	}
	rest := make(map[string]string)
	for k, v := range got.Members {
		if k != "action" {
			rest[k] = string(v)
		}
	}
	want := make(map[string]string)
	for k, v := range first.Members {
		want[k] = string(v)
	}
	if !reflect.DeepEqual(rest, want) {
		t.Errorf("feedback body without its action:\n%v\nwant the first request's:\n%v", rest, want)
	}
}

// readGolden returns testdata/name.
func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestChatChoicesGolden(t *testing.T) {
	url, _ := newScriptedGateway(t, tourDefinition, tourAnswer)
	_, stdout, _ := runChat(t, "q\n", "--url", url, "--agent", "tour", "--dir", newTourDir(t), "--interactive")
	golden.Check(t, "testdata/choices.golden", []byte(strings.TrimSuffix(stdout, "> q\n")))
}
