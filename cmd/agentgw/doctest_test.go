package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The documentation's commands (README.md and every page of docs/) are run by
// TestDocCommands. A comment right before a ```sh block tells it about the
// block:
//
//	<!-- doctest: skip: REASON -->             the block is not run
//	<!-- doctest: skip "PREFIX": REASON -->    its commands that start with PREFIX are not run
//	<!-- doctest: exit N -->                   its commands exit N, not 0
//
// Anything else in such a comment, or one that is not right before a block
// (or skips no command), fails the test, so a stale marker cannot hide a
// command.

// docCommand is one command of a ```sh block, as written (continuation
// lines, open quotes and here-documents joined with their line breaks).
type docCommand struct {
	line int // of its first line in the page
	text string
}

// docSkip is a skip marker: commands starting with prefix ("" for all of
// the block) are not run, for reason.
type docSkip struct {
	prefix, reason string
	used           bool
}

// docBlock is one ```sh block of a page and what its markers say.
type docBlock struct {
	line int // of the opening fence
	cmds []docCommand
	skip []*docSkip
	exit int
}

var (
	docMarker  = regexp.MustCompile(`^<!--\s*doctest:\s*(.*?)\s*-->\s*$`)
	docSkipArg = regexp.MustCompile(`^skip(?:\s+"([^"]+)")?:\s*(\S.*)$`)
	docExitArg = regexp.MustCompile(`^exit\s+(\d+)$`)
	docHeredoc = regexp.MustCompile(`<<-?\s*'?"?([A-Za-z_]+)'?"?`)
)

// parseDocBlocks returns the ```sh blocks of a page with their commands
// and markers. Full-line comments and blank lines between commands are not
// commands.
func parseDocBlocks(page string) ([]docBlock, error) {
	var (
		blocks  []docBlock
		pending []string // the markers seen since the last other line
		pendAt  int
		cur     *docBlock
		cmd     docCommand
		heredoc string
	)
	finish := func() {
		cur.cmds = append(cur.cmds, cmd)
		cmd = docCommand{}
	}
	for i, line := range strings.Split(page, "\n") {
		n := i + 1
		if cur == nil {
			if m := docMarker.FindStringSubmatch(line); m != nil {
				if len(pending) == 0 {
					pendAt = n
				}
				pending = append(pending, m[1])
				continue
			}
			if strings.HasPrefix(line, "```sh") {
				cur = &docBlock{line: n}
				for _, p := range pending {
					if m := docSkipArg.FindStringSubmatch(p); m != nil {
						cur.skip = append(cur.skip, &docSkip{prefix: m[1], reason: m[2]})
					} else if m := docExitArg.FindStringSubmatch(p); m != nil {
						cur.exit, _ = strconv.Atoi(m[1])
					} else {
						return nil, fmt.Errorf("line %d: doctest marker %q: want skip: REASON, skip \"PREFIX\": REASON or exit N", pendAt, p)
					}
				}
				pending = nil
				continue
			}
			if len(pending) > 0 {
				return nil, fmt.Errorf("line %d: doctest marker %q is not right before a ```sh block", pendAt, pending[0])
			}
			continue
		}
		if cmd.text == "" && strings.HasPrefix(line, "```") {
			if len(cur.cmds) == 0 {
				return nil, fmt.Errorf("line %d: a ```sh block without a command", cur.line)
			}
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		if cmd.text == "" {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			cmd.line = n
			cmd.text = line
		} else {
			cmd.text += "\n" + line
		}
		if heredoc != "" {
			if strings.TrimSpace(line) == heredoc {
				heredoc = ""
				finish()
			}
			continue
		}
		if m := docHeredoc.FindStringSubmatch(line); m != nil {
			heredoc = m[1]
			continue
		}
		if strings.HasSuffix(strings.TrimRight(shellComment.ReplaceAllString(line, ""), " "), `\`) {
			continue
		}
		quotes := 0
		for l := range strings.Lines(cmd.text) {
			quotes += strings.Count(shellComment.ReplaceAllString(l, ""), "'")
		}
		if quotes%2 == 1 {
			continue
		}
		finish()
	}
	switch {
	case cur != nil:
		return nil, fmt.Errorf("line %d: a ```sh block that is not closed", cur.line)
	case len(pending) > 0:
		return nil, fmt.Errorf("line %d: doctest marker %q is not right before a ```sh block", pendAt, pending[0])
	}
	return blocks, nil
}

// TestParseDocBlocks checks the extraction the doc test relies on.
func TestParseDocBlocks(t *testing.T) {
	page := "text\n" +
		"```sh\n" +
		"# a comment\n" +
		"agentgw lint x    # it's a comment\n" +
		"\n" +
		"curl -s a \\\n  -d '{\n  \"k\": 1}'\n" +
		"cat > f <<'EOF'\nline\n```\nEOF\n" +
		"```\n" +
		"<!-- doctest: skip \"go test\": the whole suite -->\n" +
		"<!-- doctest: exit 1 -->\n" +
		"```sh\ngo test ./...\nagentgw lint bad\n```\n" +
		"```sh\nnot sh\n```\n"
	blocks, err := parseDocBlocks(page)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", []any{len(blocks), blocks[0].cmds, blocks[1].cmds, *blocks[1].skip[0], blocks[1].exit, blocks[2].cmds})
	want := `[3 [{line:4 text:agentgw lint x    # it's a comment} {line:6 text:curl -s a \` + "\n" +
		`  -d '{` + "\n" + `  "k": 1}'} {line:9 text:cat > f <<'EOF'` + "\nline\n```\nEOF}] " +
		`[{line:17 text:go test ./...} {line:18 text:agentgw lint bad}] {prefix:go test reason:the whole suite used:false} 1 [{line:21 text:not sh}]]`
	if got != want {
		t.Errorf("parseDocBlocks =\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{
		"<!-- doctest: skip -->\n```sh\nx\n```\n",
		"<!-- doctest: skip: why -->\ntext\n```sh\nx\n```\n",
		"<!-- doctest: skip: why -->\n",
		"```sh\n```\n",
		"```sh\nx\n",
	} {
		if _, err := parseDocBlocks(bad); err == nil {
			t.Errorf("parseDocBlocks(%q) = nil error, want one", bad)
		}
	}
}

// runAsAgentgw runs the command line when this test binary was started as
// "agentgw" (by the doc test's commands) and reports whether it did.
func runAsAgentgw() (int, bool) {
	if filepath.Base(os.Args[0]) != "agentgw" {
		return 0, false
	}
	return run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr), true
}
