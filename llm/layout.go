package llm

import "bytes"

// chunkLayout remembers a chunk the relay searched in full and found
// without an "error" or "usage" key, as the bytes before and after its last
// string value (its text, in a chunk of the answer's text). An upstream writes
// a stream's chunks alike but for their text; a chunk with the same bytes
// before and after one string token has the same tokens but that string's
// content, so the same keys (the varying string is a value: what follows it
// is not a ':'), and the relay need not search it for the keys again.
//
// A chunk is remembered when the one before it was not the same either (the
// layout changed: after the role chunk, the first chunk of text) and the one
// remembered, if any, never served; at most maxLearned times an attempt, so
// that a stream whose chunks never share a layout costs no more than that
// many readings. The bytes are kept in an
// array of the relay's: a chunk whose other bytes do not fit is not
// remembered.
type chunkLayout struct {
	buf [384]byte
	// head is the length of the bytes up to and including the string's
	// opening quote, 0 when nothing is remembered; tail the length of those
	// from its closing quote on.
	head, tail int
	// misses counts the chunks in a row, up to the last, that were not
	// the same; learned the chunks remembered; served is set when a chunk
	// was the same as the one remembered.
	misses, learned int
	served          bool
}

// maxLearned bounds the chunks remembered in an attempt.
const maxLearned = 4

// same reports whether data is the remembered chunk with another string
// in the place of its last string value.
func (l *chunkLayout) same(data []byte) bool {
	if l.head > 0 && len(data) >= l.head+l.tail && bytes.Equal(data[:l.head], l.buf[:l.head]) {
		if end := stringEnd(data, l.head); end >= 0 && bytes.Equal(data[end:], l.buf[l.head:l.head+l.tail]) {
			l.misses, l.served = 0, true
			return true
		}
	}
	l.misses++
	return false
}

// searched is told of a chunk that was not the same and was searched;
// clean is set when it has neither key. It remembers the chunk if the one
// before was not the same either and the one remembered never served,
// while it may.
func (l *chunkLayout) searched(data []byte, clean bool) {
	if !clean || l.misses < 2 || l.served || l.learned == maxLearned {
		return
	}
	l.learned++
	l.learn(data)
}

// learn remembers data, a chunk searched in full and found without an
// "error" or "usage" key, when it has a string value and fits; else it
// forgets the last one.
func (l *chunkLayout) learn(data []byte) {
	l.head, l.tail, l.served = 0, 0, false
	start, end := lastStringValue(data)
	if start < 0 || start+len(data)-end > len(l.buf) {
		return
	}
	l.head, l.tail = start, len(data)-end
	copy(l.buf[:], data[:start])
	copy(l.buf[start:], data[end:])
}

// stringEnd returns the index of the quote that ends the JSON string whose
// content starts at data[from] (the first quote not escaped), or -1.
func stringEnd(data []byte, from int) int {
	for i := from; ; i++ {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		n := 0 // backslashes before the quote, within the string
		for k := i - 1; k >= from && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
	}
}

// lastStringValue returns where the content of data's last JSON string
// token that is not a key starts (after its opening quote) and where it ends
// (its closing quote), reading data as JSON's lexer does: a string starts at
// a quote outside a string, a backslash in it escapes the next byte, and the
// next quote not escaped ends it. start is -1 when there is none. It reads
// byte by byte: quotes are every few bytes in a chunk, too many for a search
// per quote to pay.
func lastStringValue(data []byte) (start, end int) {
	start, end = -1, -1
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		from := i + 1
		for i = from; i < len(data) && data[i] != '"'; i++ {
			if data[i] == '\\' {
				i++
			}
		}
		if i >= len(data) {
			break
		}
		k := i + 1
		for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\r' || data[k] == '\n') {
			k++
		}
		if k < len(data) && data[k] != ':' {
			start, end = from, i
		}
	}
	return start, end
}
