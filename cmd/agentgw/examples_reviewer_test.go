package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// reviewBody is a request to the reviewer with a vcs context, with the
// feedback action (JSON) when it is not "".
func reviewBody(branch, upstream, remote, action string) string {
	vcs, _ := json.Marshal(map[string]any{"type": "git", "branchName": branch, "upstreamBranchName": upstream,
		"remoteUrl": remote, "remotes": []string{remote}})
	body := fmt.Sprintf(`{"contextVariables":[{"name":"vcs","value":%s}]`, vcs)
	if action != "" {
		body += `,"action":` + action
	}
	return body + "}"
}

// TestReviewerAgent reviews feature against origin/main: the model's
// streamed review, then a confirm that, accepted, opens the model's
// findings as a tree.
func TestReviewerAgent(t *testing.T) {
	model := newModelFake(t)
	cfg, _ := gitConfig(t, model.URL(), newOrigin(t))
	url := startGateway(t, cfg, nil) + "/agents/reviewer"

	a := ask(t, url, reviewBody("feature", "origin/main", allowedRemote, ""))
	if want := strings.Join(reviewChunks, ""); a.text != want {
		t.Errorf("text %q, want %q", a.text, want)
	}
	confirm := a.only(t)
	if confirm.Action != "confirm" || confirm.Data.Title != "Open the findings by file" || confirm.Data.Message != "See every finding under its file" {
		t.Fatalf("confirm %+v", confirm)
	}
	// The button comes after the review's text.
	lastText := slices.IndexFunc(a.events, func(ev streamEvent) bool { return strings.Contains(ev.Data, "Sub is fine.") })
	button := slices.IndexFunc(a.events, func(ev streamEvent) bool { return ev.Name == "copilot_action" })
	if lastText < 0 || button < lastText {
		t.Errorf("the confirm (event %d) is not after the review's text (event %d)", button, lastText)
	}

	calls := model.Requests()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want the review and the findings", len(calls))
	}
	streamed := map[bool]int{}
	for _, c := range calls {
		streamed[c.Stream]++
		p := promptLines(c)
		for _, want := range []string{
			"The branch feature against origin/main: 3 files changed.",
			"docs/guide.md (deleted, +0 -3):",
			"internal/calc/add.go (modified, +6 -1):",
			"+func Double(a int) int {",
			"internal/calc/sub.go (added, +3 -0):",
		} {
			if !strings.Contains(p, want) {
				t.Errorf("a prompt (stream %v) lacks %q:\n%s", c.Stream, want, p)
			}
		}
		// main moved on after feature branched off: not the branch's change.
		if strings.Contains(p, "README.md") || strings.Contains(p, "moved on") {
			t.Errorf("a prompt shows main's later change:\n%s", p)
		}
	}
	if streamed[true] != 1 || streamed[false] != 1 {
		t.Errorf("calls by stream %v, want one streamed review and one completion", streamed)
	}

	action := fmt.Sprintf(`{"action":"confirm","state":%s,"accepted":true}`, confirm.State)
	accepted := ask(t, url, reviewBody("feature", "origin/main", allowedRemote, action))
	tree := accepted.only(t)
	var want struct{ Nodes []wireNode }
	if err := json.Unmarshal([]byte(findingsJSON), &want); err != nil {
		t.Fatal(err)
	}
	if tree.Action != "tree" || tree.Data.TreeID != "findings" || tree.Data.RootPID != "root" || jsonOf(tree.Data.Nodes) != jsonOf(want.Nodes) {
		t.Fatalf("findings tree %s", jsonOf(tree))
	}
	if got := jsonOf(tree.Data.NodeActions); got != `[{"nodeType":"finding","nodeAction":"click","promptByNodeProperty":"description"}]` {
		t.Errorf("nodeActions %s", got)
	}
	if accepted.text != "" {
		t.Errorf("the accepted confirm's text %q", accepted.text)
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("accepting asked the model again: %d calls", n)
	}
}

// TestReviewerNotAllowed: a vcs remote no repository allows is refused
// in the stream, and nothing is cloned.
func TestReviewerNotAllowed(t *testing.T) {
	model := newModelFake(t)
	cfg, cache := gitConfig(t, model.URL(), newOrigin(t))
	url := startGateway(t, cfg, nil) + "/agents/reviewer"
	for _, remote := range []string{"https://evil.example.com/team/proj.git", "git@git.example.com:other/proj.git"} {
		a := ask(t, url, reviewBody("feature", "origin/main", remote, ""))
		e := a.errorFrame()
		if e == nil || e.ErrorCode != "REPOSITORY_NOT_ALLOWED" || !strings.Contains(e.Message, "is not allowed") || e.SuggestedAction == "" {
			t.Fatalf("remote %s: error %+v, want REPOSITORY_NOT_ALLOWED; events %v", remote, e, a.events)
		}
		if a.text != "" || len(a.actions(t)) != 0 {
			t.Errorf("remote %s: text %q, %d actions", remote, a.text, len(a.actions(t)))
		}
	}
	if entries := dirEntries(t, cache); len(entries) != 0 {
		t.Errorf("the cache holds %v, want nothing cloned", entries)
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("%d model calls, want none", n)
	}
}

// TestReviewerNoChanges: a branch without changes against its upstream
// gets a sentence, no model call and no button.
func TestReviewerNoChanges(t *testing.T) {
	model := newModelFake(t)
	cfg, _ := gitConfig(t, model.URL(), newOrigin(t))
	url := startGateway(t, cfg, nil) + "/agents/reviewer"
	// The scp-like spelling of the allowed remote selects proj too.
	a := ask(t, url, reviewBody("main", "origin/main", "git@git.example.com:team/proj.git", ""))
	if e := a.errorFrame(); e != nil {
		t.Fatalf("error %+v", e)
	}
	if a.text != "Your branch has no changes against its upstream." || len(a.actions(t)) != 0 {
		t.Errorf("text %q, %d actions", a.text, len(a.actions(t)))
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("%d model calls, want none", n)
	}
}

// TestReviewerFindingsNotJSON: findings the model did not write as JSON
// fail their step, which continues: the review is shown, with no button
// and no error. The IDE's upstream remote name maps to the clone's origin.
func TestReviewerFindingsNotJSON(t *testing.T) {
	model := newModelFake(t, "I found nothing worth a list.")
	cfg, _ := gitConfig(t, model.URL(), newOrigin(t))
	url := startGateway(t, cfg, nil) + "/agents/reviewer"
	a := ask(t, url, reviewBody("feature", "upstream/main", allowedRemote, ""))
	if e := a.errorFrame(); e != nil {
		t.Fatalf("error %+v", e)
	}
	if want := strings.Join(reviewChunks, ""); a.text != want || len(a.actions(t)) != 0 {
		t.Errorf("text %q, %d actions; want %q and no button", a.text, len(a.actions(t)), want)
	}
	calls := model.Requests()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want 2", len(calls))
	}
	if p := promptLines(calls[0]); !strings.Contains(p, "The branch feature against upstream/main: 3 files changed.") || strings.Contains(p, "README.md") {
		t.Errorf("prompt:\n%s", p)
	}
}

// securityFindings are findings with one the model labels "security".
const securityFindings = `{"nodes": [
  {"id": "f1", "pId": "root", "type": "file", "name": "internal/calc/add.go", "description": "1 finding", "labels": []},
  {"id": "f1.1", "pId": "f1", "type": "finding", "name": "line 9: input reaches a shell", "description": "Quote it.", "labels": ["high", "security"]}
]}`

// TestReviewerEscalates: the triage pair of the examples. A security
// finding is escalated to the security agent from the user's conversation;
// its verdict comes back to the reviewer as PROVIDE_INFORMATION; the
// conversation holds the review, the security desk's answer and the
// reviewer's note of the verdict, in that order.
func TestReviewerEscalates(t *testing.T) {
	model := newModelFake(t, securityFindings)
	cfg, _ := gitConfig(t, model.URL(), newOrigin(t))
	base := startGateway(t, cfg, nil)
	body := strings.Replace(reviewBody("feature", "origin/main", allowedRemote, ""), `{"contextVariables":[`,
		`{"contextId":"review-1","contextVariables":[{"name":"userInfo","value":{"id":"ada","name":"Ada"}},`, 1)
	a := ask(t, base+"/agents/reviewer", body)
	if e := a.errorFrame(); e != nil {
		t.Fatalf("error %+v", e)
	}
	_, after, ok := strings.Cut(a.text, "\n> handed to security: ESCALATION (task ")
	if !ok {
		t.Fatalf("no hand-off in %q", a.text)
	}
	task := strings.TrimSuffix(strings.Fields(after)[0], ",")
	msgs := waitTask(t, base, task, 2)
	if msgs[0].Result.Agent != "security" || msgs[0].Result.Command != "triage" || msgs[1].Result.Agent != "reviewer" ||
		msgs[1].Result.Text != "Security on your branch: "+securityFindings {
		t.Fatalf("the task: %+v", msgs)
	}
	var conv struct {
		Messages []struct{ Role, Content string }
	}
	jsonCall(t, "GET", base+"/contexts/review-1", "", &conv, "X-Agentgw-User", "ada")
	var heads []string
	for _, m := range conv.Messages {
		heads = append(heads, m.Role+": "+strings.SplitN(m.Content, "\n", 2)[0])
	}
	want := []string{"assistant: Review: Double has no test; Sub is fine.",
		"assistant: [security, on the ESCALATION hand-off from reviewer, task " + task + "]",
		"assistant: [reviewer, on the PROVIDE_INFORMATION hand-off from security, task " + task + "]"}
	// Each run's turn lands when the run ends, in whichever order.
	slices.Sort(heads)
	slices.Sort(want)
	if strings.Join(heads, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the conversation:\n%s\nwant\n%s", strings.Join(heads, "\n"), strings.Join(want, "\n"))
	}
}
