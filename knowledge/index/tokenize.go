package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenizer turns text into the terms the index keeps and a query looks
// for. It must be deterministic; a query and the chunks it searches must
// go through the same one.
type Tokenizer func(string) []string

// maxTermLen bounds a term, in bytes: longer ones (base64, hashes) are
// dropped at indexing and at query time alike.
const maxTermLen = 64

// Words is the default Tokenizer, a placeholder until the code-aware one
// of knowledge/chunk is wired in: identifiers are the runs of letters,
// digits and underscores, split at underscores and at camelCase humps
// (parseHTTPRequest: parse, http, request), lower-cased; an identifier of
// several parts is also kept whole (parsehttprequest, parse_http_request),
// so that a query naming it exactly favours the chunks that do. Terms of
// one character are dropped.
func Words(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexFunc(s, isWordRune)
		if i < 0 {
			break
		}
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !isWordRune(r) })
		if j < 0 {
			j = len(s)
		}
		out = appendIdent(out, s[:j])
		s = s[j:]
	}
	return out
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// appendIdent appends the terms of one identifier.
func appendIdent(out []string, id string) []string {
	n := len(out)
	for _, part := range strings.Split(id, "_") {
		out = appendHumps(out, part)
	}
	if len(out)-n > 1 {
		out = appendTerm(out, strings.Trim(id, "_"))
	}
	return out
}

// appendHumps appends the camelCase parts of word: a new part starts at an
// upper-case letter after a lower-case letter or digit, and at the last
// upper-case letter of a run followed by a lower-case one (HTTPRequest:
// HTTP, Request).
func appendHumps(out []string, word string) []string {
	start := 0
	var prev rune = -1
	for i, r := range word {
		if i > start && unicode.IsUpper(r) {
			next, _ := utf8.DecodeRuneInString(word[i+utf8.RuneLen(r):])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) ||
				(unicode.IsUpper(prev) && unicode.IsLower(next)) {
				out = appendTerm(out, word[start:i])
				start = i
			}
		}
		prev = r
	}
	return appendTerm(out, word[start:])
}

func appendTerm(out []string, t string) []string {
	if len(t) == 0 || len(t) > maxTermLen {
		return out
	}
	if utf8.RuneCountInString(t) < 2 {
		return out
	}
	return append(out, strings.ToLower(t))
}
