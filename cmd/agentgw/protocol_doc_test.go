package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// shellWords splits a command line into words as sh does for the forms
// the docs use: blanks separate words, single quotes keep what they hold.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// docCurl is one curl command of a docs page, as the request it sends.
type docCurl struct {
	line, method, path, body string
	header                   http.Header
}

// parseCurl reads the flags of a docs curl command: -s and -N (any
// combination), -X METHOD, -H 'Name: value', -d BODY or -d @FILE (a path
// from the repository's root, sent without its line breaks as curl does),
// and one URL on localhost:18080. Any other flag fails the test, so that
// the page shows only what this test sends.
func parseCurl(t *testing.T, line string) docCurl {
	t.Helper()
	words := shellWords(line)
	c := docCurl{line: line, header: http.Header{}}
	for i := 1; i < len(words); i++ {
		w := words[i]
		next := func() string {
			if i+1 >= len(words) {
				t.Fatalf("%s: %s needs a value", line, w)
			}
			i++
			return words[i]
		}
		switch {
		case regexp.MustCompile(`^-[sN]+$`).MatchString(w):
		case w == "-X":
			c.method = next()
		case w == "-H":
			name, value, ok := strings.Cut(next(), ": ")
			if !ok {
				t.Fatalf("%s: a header without \": \"", line)
			}
			c.header.Add(name, value)
		case w == "-d":
			c.body = next()
			if file, ok := strings.CutPrefix(c.body, "@"); ok {
				data, err := os.ReadFile(filepath.Join(repoRoot, file))
				if err != nil {
					t.Fatalf("%s names %s: %v", line, file, err)
				}
				c.body = strings.NewReplacer("\r", "", "\n", "").Replace(string(data))
			}
		case strings.HasPrefix(w, "localhost:18080/"):
			c.path = strings.TrimPrefix(w, "localhost:18080")
		default:
			t.Fatalf("%s: the docs' curl commands use -s, -N, -X, -H and -d only, not %q", line, w)
		}
	}
	if c.path == "" {
		t.Fatalf("%s: no localhost:18080 URL", line)
	}
	if c.method == "" {
		c.method = map[bool]string{true: http.MethodPost, false: http.MethodGet}[c.body != ""]
	}
	return c
}

// send sends c to the gateway at base and returns the status and body.
func (c docCurl) send(t *testing.T, base string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = c.header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.line, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", c.line, err)
	}
	return resp.StatusCode, string(data)
}

// varying matches what differs between two runs of one request: chunk
// ids, creation times and action states.
var varying = regexp.MustCompile(`chatcmpl-[0-9a-f-]{36}|"created":[0-9]+|"state":"v1\.[^"]*"`)

// TestProtocolDocStream: the whole answer docs/protocol.md §3 shows is,
// byte for byte but for ids, times and states, what the request of §2
// streams.
func TestProtocolDocStream(t *testing.T) {
	doc := readDoc(t, "docs/protocol.md")
	var curl string
	for _, line := range readmeCommands(t, doc) {
		if strings.HasPrefix(line, "curl ") && strings.Contains(line, "/agents/hello") {
			curl = line
			break
		}
	}
	if curl == "" {
		t.Fatal("docs/protocol.md shows no curl command of the hello agent")
	}
	_, after, ok := strings.Cut(doc, "A whole answer of the seed's `hello` agent, as `curl` prints it:\n\n```\n")
	if !ok {
		t.Fatal("docs/protocol.md has no whole answer of the hello agent")
	}
	want, _, _ := strings.Cut(after, "```\n")
	base := startGateway(t, testConfig(t, ""), nil)
	code, got := parseCurl(t, curl).send(t, base)
	if code != http.StatusOK {
		t.Fatalf("%s = %d %s", curl, code, got)
	}
	norm := func(s string) string { return varying.ReplaceAllStringFunc(s, func(m string) string { return m[:5] }) }
	if norm(got) != norm(want) {
		t.Errorf("docs/protocol.md shows\n%s\nthe gateway streams\n%s", want, got)
	}
}
