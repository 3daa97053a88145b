package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTermBytes bounds a term: longer words (hashes, base64, minified
// code) are not terms, though the parts they split into may be.
const maxTermBytes = 64

// Tokens splits text into the lower-cased terms the lexical index counts,
// in order and with repeats. It is made for code as much as prose:
//
//   - A word is a run of letters and digits, joined by '_' or a '-' between
//     two of them (snake_case, kebab-case).
//   - A word splits at '_' and '-', at camelCase and PascalCase boundaries
//     (an acronym ends before its last capital when a lower-case letter
//     follows: parseHTTPRequest → parse, http, request) and between letters
//     and digits (utf8 → utf, 8).
//   - A word of several parts is also kept whole, lower-cased
//     (parsehttprequest, parse_http_request), so the exact identifier
//     ranks first.
//   - Parts of one character, stop words and terms over 64 bytes are
//     dropped; digits are kept (404, 8080).
//   - Parts are stemmed lightly (see stem: requests → request, queries →
//     query, parsing → pars, logged → log), so that a query's words find
//     the code's whatever their form; whole identifiers are not stemmed.
//   - Han, Hiragana, Katakana and Hangul runs, written without spaces,
//     give overlapping pairs of characters (开发指南 → 开发, 发指, 指南),
//     or the character alone.
//
// Anything else (punctuation, symbols, invalid UTF-8) separates words.
// The number of terms is at most the number of bytes of text.
func Tokens(text string) []string {
	return AppendTokens(nil, text)
}

// AppendTokens appends the terms of text, as Tokens splits them, to dst.
func AppendTokens(dst []string, text string) []string {
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case isCJK(r):
			j := i
			for j < len(text) {
				r, n := utf8.DecodeRuneInString(text[j:])
				if !isCJK(r) {
					break
				}
				j += n
			}
			dst = appendBigrams(dst, text[i:j])
			i = j
		case isWordRune(r):
			j := i + size
			for j < len(text) {
				r, n := rune(text[j]), 1
				if r >= utf8.RuneSelf {
					r, n = utf8.DecodeRuneInString(text[j:])
				}
				if isWordRune(r) || r == '_' {
					j += n
					continue
				}
				if r == '-' && j+1 < len(text) {
					if r2, _ := utf8.DecodeRuneInString(text[j+1:]); isWordRune(r2) {
						j += n
						continue
					}
				}
				break
			}
			dst = appendWord(dst, strings.TrimRight(text[i:j], "_"))
			i = j
		default:
			i += size
		}
	}
	return dst
}

// QueryTokens splits a query as Tokens does, without repeats: each term
// once, in the order it first appears.
func QueryTokens(query string) []string {
	terms := Tokens(query)
	out := terms[:0]
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// isWordRune reports whether r is a letter or digit outside the scripts
// split in pairs.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) && !isCJK(r)
}

// isCJK reports whether r belongs to a script written without spaces
// between words.
func isCJK(r rune) bool {
	return r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// appendBigrams appends the overlapping pairs of characters of s, or s
// when it is one character.
func appendBigrams(dst []string, s string) []string {
	_, first := utf8.DecodeRuneInString(s)
	if first == len(s) {
		return append(dst, s)
	}
	for i := 0; i < len(s); {
		_, a := utf8.DecodeRuneInString(s[i:])
		if i+a >= len(s) {
			break
		}
		_, b := utf8.DecodeRuneInString(s[i+a:])
		dst = append(dst, s[i:i+a+b])
		i += a
	}
	return dst
}

// appendWord appends the terms of one word (letters and digits joined by
// '_' or '-').
func appendWord(dst []string, word string) []string {
	parts := 0
	emit := func(p string) {
		parts++
		if len(p) < 2 || len(p) > maxTermBytes || utf8.RuneCountInString(p) < 2 {
			return
		}
		p = strings.ToLower(p)
		if isStopWord(p) {
			return
		}
		dst = append(dst, stem(p))
	}
	for rest := word; rest != ""; {
		i := strings.IndexAny(rest, "_-")
		if i < 0 {
			i = len(rest)
		}
		if i > 0 {
			splitCase(rest[:i], emit)
		}
		rest = rest[min(i+1, len(rest)):]
	}
	if parts > 1 {
		whole := strings.Trim(word, "_-")
		if len(whole) <= maxTermBytes {
			dst = append(dst, strings.ToLower(whole))
		}
	}
	return dst
}

// Character classes for splitCase.
const (
	classOther = iota
	classUpper
	classLower
	classDigit
)

func charClass(r rune) int {
	switch {
	case r >= 'a' && r <= 'z':
		return classLower
	case r >= 'A' && r <= 'Z':
		return classUpper
	case r >= '0' && r <= '9':
		return classDigit
	case r < utf8.RuneSelf:
		return classOther
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return classUpper
	case unicode.IsDigit(r):
		return classDigit
	}
	return classLower // other letters, with or without case
}

// splitCase calls emit with the parts of s at case and digit boundaries:
// before an upper-case letter after a lower-case one, before the last of a
// run of capitals that a lower-case letter follows, and between letters
// and digits.
func splitCase(s string, emit func(string)) {
	start := 0
	prev, prevAt := classOther, 0
	for i, r := range s {
		c := charClass(r)
		if i > start {
			switch {
			case c == classUpper && prev == classLower,
				c == classDigit && prev != classDigit,
				c != classDigit && prev == classDigit:
				emit(s[start:i])
				start = i
			case c == classLower && prev == classUpper && prevAt > start:
				emit(s[start:prevAt])
				start = prevAt
			}
		}
		prev, prevAt = c, i
	}
	if start < len(s) {
		emit(s[start:])
	}
}

// stem reduces a term of ASCII letters to its stem, so that the words of
// a question meet those of the code and its comments (parsing, parsed,
// parses, parse → pars), a light stemmer after Harman's S-stemmer and
// Porter's first steps:
//
//   - a plural s goes: -ies → -y (but not -eies, -aies), -sses, -xes,
//     -ches, -shes, -zzes lose -es (but caches → cache), -ss, -us, -is
//     stay, else a final s goes (of terms of four letters or more);
//   - then -ing and -ed go when what remains has a vowel and two letters
//     (string, bring, need, speed stay), and a doubled final consonant
//     other than l, s, z is undoubled (logging → log, embedded → embed);
//   - then a final e goes from three letters on (parse → pars, use → us),
//     not a doubled one (free).
//
// Terms with other characters (digits, other scripts) are kept as they
// are.
func stem(t string) string {
	if len(t) < 3 {
		return t
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 'a' || t[i] > 'z' {
			return t
		}
	}
	t = plural(t)
	if s, ok := strings.CutSuffix(t, "ing"); ok && stemmable(s) {
		t = undouble(s)
	} else if s, ok := strings.CutSuffix(t, "ed"); ok && !strings.HasSuffix(s, "e") && stemmable(s) {
		t = undouble(s)
	}
	if len(t) >= 3 && t[len(t)-1] == 'e' && t[len(t)-2] != 'e' {
		t = t[:len(t)-1]
	}
	return t
}

// stemmable reports whether s, a word less a suffix, is long enough to be
// a stem: two letters or more, one of them a vowel.
func stemmable(s string) bool {
	return len(s) >= 2 && strings.ContainsAny(s, "aeiouy")
}

// undouble drops the last letter of s when it doubles the one before and
// is a consonant other than l, s and z.
func undouble(s string) string {
	n := len(s)
	if n >= 3 && s[n-1] == s[n-2] && !strings.ContainsRune("aeioulsz", rune(s[n-1])) {
		return s[:n-1]
	}
	return s
}

// plural drops the plural s of a term of four letters or more.
func plural(t string) string {
	if len(t) < 4 || t[len(t)-1] != 's' {
		return t
	}
	has := func(suffix string) bool { return strings.HasSuffix(t, suffix) }
	switch {
	case has("ies") && len(t) > 4 && !has("eies") && !has("aies"):
		return t[:len(t)-3] + "y"
	case has("caches"):
		return t[:len(t)-1]
	case has("sses") || has("xes") || has("ches") || has("shes") || has("zzes"):
		return t[:len(t)-2]
	case has("ss") || has("us") || has("is"):
		return t
	}
	return t[:len(t)-1]
}

// isStopWord reports the words too common to tell chunks apart: English
// function words and the keywords of code that say nothing of what it
// does. The list is short on purpose: BM25 already discounts frequent
// terms, and words such as "not", "error", "type" or "new" carry meaning
// in a query.
func isStopWord(t string) bool {
	switch t {
	case "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could",
		"did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his",
		"how", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
		"our", "she", "should", "so", "than", "that", "the", "their", "them", "then",
		"there", "these", "they", "this", "those", "to", "too", "was", "we", "were",
		"what", "when", "where", "which", "who", "why", "will", "with", "would",
		"you", "your",
		// The rest of the function words of common English stop lists
		// (NLTK's), which a question holds and code says nothing with;
		// not those that name things in code (after, all, any, before,
		// down, each, more, no, not, off, only, other, out, over, same,
		// some, under, until, up).
		"about", "against", "am", "because", "being", "between", "both", "doing",
		"don", "during", "further", "having", "here", "hers", "herself", "him",
		"himself", "itself", "myself", "ours", "ourselves", "own", "such",
		"theirs", "themselves", "through", "very", "while", "whom", "yours",
		"yourself", "yourselves",
		// Keywords of code.
		"def", "elif", "else", "false", "fn", "func", "function", "let", "nil",
		"none", "null", "pub", "return", "self", "true", "var", "void":
		return true
	}
	return false
}
