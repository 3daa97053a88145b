package chat

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/chat/chattest"
)

// fxDefinition is a canned agent whose default command collects the prompt.
const fxDefinition = `{"name":"fx","commands":[{"name":"default","contextVariableCollectionStrategy":{"type":"specify","contextVariables":[{"name":"userInputPrompt"}]}}]}`

func toolCallFrame(data string) string { return "event: copilot_tool_call\ndata: " + data + "\n\n" }

const (
	readCall = `{"callId":"call_1","name":"read_file","parameters":{"path":"calc.go"},"userPrompt":"Let the agent read this file?","fallbackBehavior":"SKIP"}`
	listCall = `{"callId":"call_2","name":"list_files","parameters":{"pattern":"*.go"}}`
	// readLine and listLine are what chat prints of those calls.
	readLine = `↳ read_file {"path":"calc.go"} … `
	listLine = `↳ list_files {"pattern":"*.go"} … `
	askRead  = `Let the agent read this file? (read_file {"path":"calc.go"}) [y/N] `
	// readOK and listOK are their results in the feedback.
	readOK = `{"callId":"call_1","status":"SUCCESS","result":{"path":"calc.go","content":"package calc\n\nfunc Add(a, b int) int { return a - b }\n","startLine":1,"endLine":3,"truncated":false},"executionTime":0}`
	listOK = `{"callId":"call_2","status":"SUCCESS","result":{"files":["calc.go"],"truncated":false},"executionTime":0}`
)

// toolAnswer asks for read_file and list_files; after its text, a consent
// confirm the gateway would send for a backend tool of the same round.
var toolAnswer = textFrame("Let me look. ") + toolCallFrame(readCall) + toolCallFrame(listCall) +
	actionFrame(`{"action":"confirm","state":"s-consent","data":{"title":"Allow","message":"Run go test?"}}`) +
	stopFrame + doneFrame

// newCalcDir is a workspace with calc.go.
func newCalcDir(t *testing.T) string {
	dir := t.TempDir()
	chattest.WriteFile(t, dir, "calc.go", calcGo)
	return dir
}

var executionTime = regexp.MustCompile(`"executionTime":\d+`)

// toolResultsOf returns the toolResults a request sent, executionTime
// zeroed, and checks that the rest of the body is first's.
func toolResultsOf(t *testing.T, first, got chattest.Request) string {
	t.Helper()
	rest := map[string]string{}
	for k, v := range got.Members {
		if k != "toolResults" {
			rest[k] = string(v)
		}
	}
	want := map[string]string{}
	for k, v := range first.Members {
		want[k] = string(v)
	}
	if !reflect.DeepEqual(rest, want) {
		t.Errorf("feedback body without toolResults:\n%v\nwant the originating request's:\n%v", rest, want)
	}
	return executionTime.ReplaceAllString(got.Member("toolResults"), `"executionTime":0`)
}

func TestChatToolCalls(t *testing.T) {
	declinedRead := `{"callId":"call_1","status":"ERROR","error":{"code":"DECLINED","message":"the user declined"},"executionTime":0}`
	notAllowed := `"status":"ERROR","error":{"code":"DECLINED","message":"the user did not allow it: agentgw chat runs tools only with --allow-tools"},"executionTime":0}`
	tests := []struct {
		name    string
		args    []string
		stdin   string
		stdout  string // after the first answer, before "Found it.\n"
		results string
	}{
		{name: "--allow-tools runs them", args: []string{"--allow-tools"},
			stdout:  readLine + "done\n" + listLine + "done\n",
			results: `[` + readOK + `,` + listOK + `]`},
		{name: "without --allow-tools and a terminal, declined", args: nil,
			stdout: readLine + "declined (run chat with --allow-tools to let the agent use tools) — fallback SKIP: the agent may go on without it\n" +
				listLine + "declined (run chat with --allow-tools to let the agent use tools)\n",
			results: `[{"callId":"call_1",` + notAllowed + `,{"callId":"call_2",` + notAllowed + `]`},
		{name: "--once declines too", args: []string{"--once"},
			stdout: readLine + "declined (run chat with --allow-tools to let the agent use tools) — fallback SKIP: the agent may go on without it\n" +
				listLine + "declined (run chat with --allow-tools to let the agent use tools)\n",
			results: `[{"callId":"call_1",` + notAllowed + `,{"callId":"call_2",` + notAllowed + `]`},
		{name: "interactive, yes; a call without a prompt runs unasked", args: []string{"--interactive"}, stdin: "y\n",
			stdout:  askRead + "y\n" + readLine + "done\n" + listLine + "done\n",
			results: `[` + readOK + `,` + listOK + `]`},
		{name: "interactive, YES", args: []string{"--interactive"}, stdin: " YES \n",
			stdout:  askRead + " YES \n" + readLine + "done\n" + listLine + "done\n",
			results: `[` + readOK + `,` + listOK + `]`},
		{name: "interactive, no", args: []string{"--interactive"}, stdin: "n\n",
			stdout:  askRead + "n\n" + readLine + "declined — fallback SKIP: the agent may go on without it\n" + listLine + "done\n",
			results: `[` + declinedRead + `,` + listOK + `]`},
		{name: "interactive, just enter", args: []string{"--interactive"}, stdin: "\n",
			stdout:  askRead + "\n" + readLine + "declined — fallback SKIP: the agent may go on without it\n" + listLine + "done\n",
			results: `[` + declinedRead + `,` + listOK + `]`},
		{name: "interactive, the input ends", args: []string{"--interactive"}, stdin: "",
			stdout:  askRead + "\n" + readLine + "declined — fallback SKIP: the agent may go on without it\n" + listLine + "done\n",
			results: `[` + declinedRead + `,` + listOK + `]`},
		{name: "interactive with --allow-tools does not ask", args: []string{"--interactive", "--allow-tools"},
			stdout:  readLine + "done\n" + listLine + "done\n",
			results: `[` + readOK + `,` + listOK + `]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, rec := newScriptedGateway(t, fxDefinition, toolAnswer, textFrame("Found it.")+stopFrame+doneFrame)
			args := append([]string{"--url", url, "--agent", "fx", "--dir", newCalcDir(t)}, tt.args...)
			code, stdout, stderr := runChat(t, tt.stdin, append(args, "fix", "it")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			head := "Let me look. \n"
			if !slices.Contains(tt.args, "--interactive") { // printed, not offered
				head += "\n  [ Allow ]  Run go test? → sends feedback\n"
			}
			if want := head + tt.stdout + "Found it.\n"; stdout != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
			}
			reqs := rec.All()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			if got := toolResultsOf(t, reqs[0], reqs[1]); got != tt.results {
				t.Errorf("toolResults:\n%s\nwant:\n%s", got, tt.results)
			}
			var prompt string
			if reqs[1].Value(t, "userInputPrompt", &prompt); prompt != "fix it" {
				t.Errorf("the feedback's prompt %q", prompt)
			}
		})
	}
}

// TestChatToolRounds: each answer's calls get their own feedback, from the
// body that brought them; an action after the tool rounds sends feedback
// without toolResults; unknown tools and unreadable frames.
func TestChatToolRounds(t *testing.T) {
	second := textFrame("More.") + toolCallFrame(`{"callId":"call_3","name":"rm_rf","parameters":{"path":"/"},"fallbackBehavior":"ABORT"}`) +
		toolCallFrame(`{"name":"read_file"}`) + toolCallFrame(`{"callId":`) +
		toolCallFrame(`{"callId":"call_4","name":"read_file","parameters":"calc.go"}`) + stopFrame + doneFrame
	third := textFrame("Fixed.") + actionFrame(`{"action":"confirm","state":"s-apply","data":{"title":"Apply","message":"Apply it?"}}`) + stopFrame + doneFrame
	url, rec := newScriptedGateway(t, fxDefinition, toolAnswer, second, third, plainAnswer)
	code, stdout, stderr := runChat(t, "y\n1\n", "--url", url, "--agent", "fx", "--dir", newCalcDir(t), "--interactive", "fix")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "Let me look. \n" + askRead + "y\n" + readLine + "done\n" + listLine + "done\n" +
		"More.\n[unreadable tool call: it has no callId]\n[unreadable tool call: unexpected end of JSON input]\n" +
		`↳ rm_rf {"path":"/"} … error UNKNOWN_TOOL: chat has no tool named "rm_rf"; it runs read_file, list_files and search_text — fallback ABORT: the agent should stop here` + "\n" +
		`↳ read_file "calc.go" … error INVALID_PARAMETERS: parameters: json: cannot unmarshal string into Go value of type chat.readParams` + "\n" +
		"Fixed.\n\n  1) [ Apply ]  Apply it? → accept\n  2) [ Apply ]  Apply it? → dismiss\n  q) quit\n> 1\nDone.\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	reqs := rec.All()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if got := toolResultsOf(t, reqs[0], reqs[1]); got != `[`+readOK+`,`+listOK+`]` {
		t.Errorf("first toolResults %s", got)
	}
	wantSecond := `[{"callId":"call_3","status":"ERROR","error":{"code":"UNKNOWN_TOOL","message":"chat has no tool named \"rm_rf\"; it runs read_file, list_files and search_text"},"executionTime":0},` +
		`{"callId":"call_4","status":"ERROR","error":{"code":"INVALID_PARAMETERS","message":"parameters: json: cannot unmarshal string into Go value of type chat.readParams"},"executionTime":0}]`
	if got := toolResultsOf(t, reqs[0], reqs[2]); got != wantSecond {
		t.Errorf("second toolResults:\n%s\nwant:\n%s", got, wantSecond)
	}
	checkFeedback(t, reqs[0], reqs[3], `{"action":"confirm","state":"s-apply","accepted":true}`)
}

// TestChatToolRoundsCapped: an agent that never stops asking ends the
// session after maxToolRounds answers.
func TestChatToolRoundsCapped(t *testing.T) {
	url, rec := newCannedGateway(t, fxDefinition, toolCallFrame(listCall)+stopFrame+doneFrame)
	code, stdout, stderr := runChat(t, "", "--url", url, "--agent", "fx", "--dir", newCalcDir(t), "--allow-tools")
	if code != 1 || stderr != "agentgw chat: the agent asked for tools 16 times in this session; chat stops here\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if n := rec.Count(); n != maxToolRounds+1 {
		t.Errorf("%d requests, want %d", n, maxToolRounds+1)
	}
	if want := strings.Repeat(listLine+"done\n", maxToolRounds); stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

// TestChatToolResultJSON: the entry of a result that has neither a result
// nor an error, as the wire expects it.
func TestChatToolResultJSON(t *testing.T) {
	tests := []struct {
		res  toolspec.Result
		want string
	}{
		{toolspec.Result{CallID: "c", Status: toolspec.StatusSuccess, Result: readResult{Path: "a", StartLine: 1}, ExecutionTime: 3},
			`{"callId":"c","status":"SUCCESS","result":{"path":"a","content":"","startLine":1,"endLine":0,"truncated":false},"executionTime":3}`},
		{toolspec.Result{CallID: "c", Status: toolspec.StatusTimeout, Error: &toolspec.ResultError{Code: toolspec.CodeTimeout, Message: "slow"}},
			`{"callId":"c","status":"TIMEOUT","error":{"code":"TIMEOUT","message":"slow"},"executionTime":0}`},
	}
	for _, tt := range tests {
		data, err := json.Marshal(tt.res)
		if err != nil || string(data) != tt.want {
			t.Errorf("%s %v\nwant %s", data, err, tt.want)
		}
	}
}

// TestChatToolCallAfterFeedback: tool calls in the answer to action
// feedback are answered with that body minus its action, plus toolResults.
func TestChatToolCallAfterFeedback(t *testing.T) {
	confirm := textFrame("Ready.") + actionFrame(`{"action":"confirm","state":"s-go","data":{"title":"Go","message":"Go on?"}}`) + stopFrame + doneFrame
	url, rec := newScriptedGateway(t, fxDefinition, confirm, toolCallFrame(listCall)+stopFrame+doneFrame, plainAnswer)
	code, stdout, stderr := runChat(t, "1\n", "--url", url, "--agent", "fx", "--dir", newCalcDir(t), "--interactive", "--allow-tools")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "Ready.\n\n  1) [ Go ]  Go on? → accept\n  2) [ Go ]  Go on? → dismiss\n  q) quit\n> 1\n" + listLine + "done\nDone.\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	reqs := rec.All()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	checkFeedback(t, reqs[0], reqs[1], `{"action":"confirm","state":"s-go","accepted":true}`)
	if got := toolResultsOf(t, reqs[0], reqs[2]); got != `[`+listOK+`]` {
		t.Errorf("toolResults %s", got)
	}
}
