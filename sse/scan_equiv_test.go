package sse

import (
	"testing"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

// FuzzScannerAgrees checks the relay's own walker against the request
// path's tokenizer, jsonscan, in its relay mode (AcceptInvalidUTF8): the
// same verdict and end on any leading value, and on any object the same
// members and the same line-break record. sse keeps its walker for speed
// (docs/protocol.md §2, "JSON and UTF-8"); this keeps the two grammars one.
func FuzzScannerAgrees(f *testing.F) {
	for _, s := range append(append([]string{}, chunkSeeds...), fastSeeds...) {
		f.Add([]byte(s))
	}
	f.Add([]byte("{\n\"a\":\r[1,\n2],\"b\":{}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		mine := scanner{data: data}
		mine.skipSpace()
		myOK := mine.value(0)
		js := jsonscan.Scanner{Data: data, AcceptInvalidUTF8: true}
		js.WS()
		jsErr := js.Skip()
		if myOK != (jsErr == nil) || (myOK && mine.pos != js.Pos) {
			t.Fatalf("value %q: sse %v at %d, jsonscan %v at %d", data, myOK, mine.pos, jsErr, js.Pos)
		}

		mine = scanner{data: data}
		js = jsonscan.Scanner{Data: data, AcceptInvalidUTF8: true}
		myErr, jsErr := mine.openObject(), js.OpenObject()
		for first := true; myErr == nil && jsErr == nil; first = false {
			m, ok, err := mine.nextMember(first)
			jm, jok, jerr := js.NextMember(first)
			myErr, jsErr = err, jerr
			if ok != jok || (err == nil) != (jerr == nil) {
				t.Fatalf("object %q: sse member %v %v, jsonscan %v %v", data, ok, err, jok, jerr)
			}
			if !ok {
				break
			}
			if string(m.key) != string(data[jm.KeyStart:jm.KeyEnd]) || m.valueStart != jm.ValueStart || m.valueEnd != jm.ValueEnd {
				t.Fatalf("object %q: sse member %q %d-%d, jsonscan %+v", data, m.key, m.valueStart, m.valueEnd, jm)
			}
		}
		if myErr == nil && jsErr == nil {
			myErr, jsErr = mine.end(), js.End()
		}
		if (myErr == nil) != (jsErr == nil) || (myErr == nil && mine.newline != js.Newline) {
			t.Fatalf("object %q: sse %v (newline %v), jsonscan %v (newline %v)", data, myErr, mine.newline, jsErr, js.Newline)
		}
	})
}
