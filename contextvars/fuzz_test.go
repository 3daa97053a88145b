package contextvars

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

func addDecodeSeeds(f *testing.F) {
	full, err := os.ReadFile("testdata/full.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	for _, s := range []string{
		``, `null`, `[]`, `[{"name":"x","value":null}]`, `[{"value":{"id":"a"},"name":"userInfo"}]`,
		`[{"name":"userInputPrompt","value":"a\u00e9\ud83d\ude00\n"}]`, `[{"name":"a","value":[1,{"b":[true,false,null]}]}]`,
		`[{"name":"activeEditor","value":{"content":"a\nb","selectedRanges":[{"startLine":1,"startColumn":1,"endLine":2,"endColumn":1}],"visibleRange":{"content":"x"}}}]`,
		`[{"name":"knowledgeBase","value":[{"knowledgeBaseId":"k","references":[{"score":1e-3,"metadata":{"startPos":1}}]}]}]`,
		`[{"name":"packageFiles","value":[{"filepath":"go.mod","content":""}]},{"name":"globalPrompts","value":[]}]`,
		`[{"name":"vcs","value":{"remotes":["a","b"]}}]`, `[1]`, `[{"name":"a"`, "[{\"name\":\"userInputPrompt\",\"value\":\"\xff\"}]",
		// A value before its name, then more strings (they share one arena).
		`[{"value":"abc","name":"userInputPrompt"},{"name":"vcs","value":{"branchName":"def"}}]`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzDecode checks that Decode never panics, agrees with encoding/json on
// validity and on the values of known variables, and that whatever decodes
// re-encodes with MarshalJSON and decodes again to an equal Set.
func FuzzDecode(f *testing.F) {
	addDecodeSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		blank := len(bytes.TrimLeft(data, " \t\r\n")) == 0
		if valid := json.Valid(data); !valid && !blank && err == nil {
			t.Fatalf("Decode accepted invalid JSON %q", data)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			return
		}
		compareWithStdlib(t, data, s)
		// With one-byte arena blocks every string moves between blocks
		// as it grows: the same Set.
		if tiny, _, err := decodePrefix(data, 1); err != nil || !reflect.DeepEqual(s, tiny) {
			t.Fatalf("with tiny arena blocks: %v\n%#v\n%#v", err, s, tiny)
		}
		out, err := s.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", out, err)
		}
		if !reflect.DeepEqual(s, again) {
			t.Fatalf("round trip differs:\n%#v\n%#v", s, again)
		}
	})
}

// compareWithStdlib decodes the known variables of data with encoding/json
// and compares them with s.
func compareWithStdlib(t *testing.T, data []byte, s *Set) {
	var list []struct {
		Name  string
		Value json.RawMessage
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) || len(bytes.TrimSpace(data)) == 0 {
		return
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("encoding/json rejects what Decode accepted: %v", err)
	}
	for _, el := range list {
		if el.Value == nil || string(el.Value) == "null" {
			continue
		}
		if !isKnown(el.Name) {
			// Unknown variables decode as encoding/json decodes an any.
			var want any
			if err := json.Unmarshal(el.Value, &want); err != nil {
				t.Fatalf("encoding/json rejects %s of %s: %v", el.Name, el.Value, err)
			}
			if got := s.Other[el.Name]; !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Decode gives %#v, encoding/json %#v", el.Name, got, want)
			}
			continue
		}
		want := reflect.New(reflect.TypeOf(s.value(el.Name)))
		if err := json.Unmarshal(el.Value, want.Interface()); err != nil {
			t.Fatalf("encoding/json rejects %s of %s: %v", el.Name, el.Value, err)
		}
		if got := s.value(el.Name); !reflect.DeepEqual(got, want.Elem().Interface()) {
			t.Fatalf("%s: Decode gives %#v, encoding/json %#v", el.Name, got, want.Elem().Interface())
		}
	}
}

// FuzzApply checks that applying arbitrary options to arbitrary editor text
// never panics and only ever keeps text that was in the input.
func FuzzApply(f *testing.F) {
	f.Add("a\nbc\ndé😀f\ng\n", "x\ny", "z", true, true, 2, 1, 2, 2, 3, 0, 1, true, true)
	f.Add("", "", "", false, false, 0, 0, 0, 0, 0, 0, 0, false, false)
	f.Add("one line", "", "", false, false, 1, 100, 1, -5, 3, 1<<40, -1, true, true)
	f.Add("a\r\nb\r\n\r\n", "", "", false, true, 3, 1, 1, 1, 0, 5, 0, true, false)
	f.Fuzz(func(t *testing.T, content, before, after string, hasBefore, hasAfter bool,
		sl, sc, el, ec, nBefore, nAfter, dropped int, setBefore, setAfter bool) {
		r := Range{StartLine: sl, StartColumn: sc, EndLine: el, EndColumn: ec}
		if hasBefore {
			r.ContentBeforeSelection = &before
		}
		if hasAfter {
			r.ContentAfterSelection = &after
		}
		e := &Editor{Content: content, SelectedRanges: []Range{r}}
		var o Options
		if setBefore {
			o.ContentBeforeSelectionLines = &nBefore
		}
		if setAfter {
			o.ContentAfterSelectionLines = &nAfter
		}
		applyEditor(e, o, dropped)
		got := e.SelectedRanges[0]
		checkSide(t, "before", got.ContentBeforeSelection, setBefore, hasBefore, before, content, nBefore, strings.HasSuffix)
		checkSide(t, "after", got.ContentAfterSelection, setAfter, hasAfter, after, content, nAfter, strings.HasPrefix)
	})
}

func checkSide(t *testing.T, what string, got *string, set, given bool, text, content string, n int,
	ends func(string, string) bool) {
	t.Helper()
	switch {
	case !set:
		if got != nil {
			t.Fatalf("%s: option unset but kept %q", what, *got)
		}
	case given:
		if got == nil || !ends(text, *got) {
			t.Fatalf("%s: %v is not an end of the given %q", what, got, text)
		}
	case got != nil:
		if !strings.Contains(content, *got) {
			t.Fatalf("%s: derived %q is not in the content", what, *got)
		}
	}
	if got != nil && strings.Count(*got, "\n") > max(n, 0) {
		t.Fatalf("%s: %q has more than %d full lines", what, *got, n)
	}
}

// FuzzParseSelection checks that ParseSelection never panics, accepts only
// ordered positions counted from 1, and reads back what String writes.
func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"1", "3:4", "1-2", "1:1-2:3", " 10:2 - 10:5 ", "2-1", "0", "1:0", "a", "1:2-1:1",
		"", "-", "1-", "99999999999999999999", "5-5:3", "+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelection(s)
		if err != nil {
			return
		}
		if sel.StartLine < 1 || sel.StartColumn < 1 || sel.EndLine < sel.StartLine || sel.EndColumn < 0 ||
			(sel.EndLine == sel.StartLine && sel.EndColumn != 0 && sel.EndColumn < sel.StartColumn) {
			t.Fatalf("ParseSelection(%q) = %+v, not a valid selection", s, sel)
		}
		again, err := ParseSelection(sel.String())
		if err != nil || again != sel {
			t.Fatalf("ParseSelection(%q) = %+v; its String %q reads back as %+v, %v", s, sel, sel.String(), again, err)
		}
	})
}

// FuzzCut checks that cutting arbitrary editor text never panics, ends,
// never touches the protected variables or the selected text, and only keeps
// text that was there.
func FuzzCut(f *testing.F) {
	f.Add("l1\nl2\nl3 SEL\nl4", "v\nl3 SEL", "b\nl3 ", "\na", 3, 4, 3, 7, 2, 1)
	f.Add("", "", "", "", 0, 0, 0, 0, 0, 0)
	f.Add("a\n\n\nb", "\n", "\n\n", "x\n", -4, 2, 1<<40, -1, 0, 7)
	f.Fuzz(func(t *testing.T, content, visible, before, after string, sl, sc, el, ec, vstart, need int) {
		s := &Set{UserInputPrompt: "q", GlobalPrompts: []Prompt{{Content: "g"}}, ActiveEditor: &Editor{
			Content: content, StartLine: sl, EndLine: el, CursorOffset: sc,
			SelectedRanges: []Range{{Content: "sel", StartLine: sl, StartColumn: sc, EndLine: el, EndColumn: ec,
				ContentBeforeSelection: &before, ContentAfterSelection: &after}},
			VisibleRange: &Span{Content: visible, StartLine: vstart},
		}}
		for i := 0; ; i++ {
			if i > 4*(len(content)+len(visible)+len(before)+len(after))+20 {
				t.Fatal("Cut does not end")
			}
			if s.Cut(need%50, func(x string) int { return len(x) }) == nil {
				break
			}
		}
		e := s.ActiveEditor
		r := e.SelectedRanges[0]
		if s.UserInputPrompt != "q" || len(s.GlobalPrompts) != 1 || r.Content != "sel" {
			t.Fatal("a protected value was cut")
		}
		if !strings.Contains(content, e.Content) || (e.VisibleRange != nil && !strings.Contains(visible, e.VisibleRange.Content)) ||
			(r.ContentBeforeSelection != nil && !strings.HasSuffix(before, *r.ContentBeforeSelection)) ||
			(r.ContentAfterSelection != nil && !strings.HasPrefix(after, *r.ContentAfterSelection)) {
			t.Fatalf("kept text that was not there: %#v", e)
		}
	})
}
