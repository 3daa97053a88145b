package mcp

import (
	"errors"
	"fmt"
	"strings"
)

// SplitArgs splits a command line into argv words the way a POSIX shell splits
// a simple command, without running a shell: words are separated by unquoted
// blanks (space, tab, newline, carriage return; no other Unicode spaces);
// single quotes keep everything literally up to
// the next single quote; double quotes keep everything literally except that a
// backslash escapes `"` and `\`; outside quotes a backslash escapes any
// character. Nothing else is special: no variables, globs, redirections,
// pipes or `;`, so `a; rm -rf /` is the four words "a;", "rm", "-rf", "/".
func SplitArgs(line string) ([]string, error) {
	var (
		words  []string
		word   strings.Builder
		inWord bool
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 >= len(line) {
				return nil, errors.New("splitting command: trailing backslash")
			}
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("splitting command: unterminated single quote at byte %d", i)
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			n, err := readDoubleQuoted(line[i+1:], &word)
			if err != nil {
				return nil, fmt.Errorf("splitting command: %w at byte %d", err, i)
			}
			i += n + 1
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// readDoubleQuoted copies the body of a double-quoted string (s starts after
// the opening quote) into w and returns the index of the closing quote in s.
func readDoubleQuoted(s string, w *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return i, nil
		case '\\':
			if i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
				i++
				w.WriteByte(s[i])
				continue
			}
			w.WriteByte(c)
		default:
			w.WriteByte(c)
		}
	}
	return 0, errors.New("unterminated double quote")
}
