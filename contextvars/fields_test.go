package contextvars

import (
	"reflect"
	"testing"
)

// FuzzTemplateField: for every variable a decoded request has, and for
// names it lacks, TemplateField gives exactly what TemplateData holds, field
// by field wherever it is lazy.
func FuzzTemplateField(f *testing.F) {
	addDecodeSeeds(f)
	f.Add([]byte(`[{"name":"activeEditor","value":{"filePath":"a.go","language":"go","content":"x\ny\n","cursorOffset":300,` +
		`"startLine":1,"endLine":2,"selectedRanges":[{"content":"y","startLine":2,"startColumn":1,"endLine":2,"endColumn":2,` +
		`"contentBeforeSelection":"x"},{"content":"z","startLine":3}],"visibleRange":{"content":"x\ny","startLine":1,"endLine":2}}},` +
		`{"name":"userInputPrompt","value":""},{"name":"custom","value":{"a":[1,"b"]}},{"name":"agent","value":"x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			return
		}
		checkField(t, "data", setFields{s}, s.TemplateData())
	})
}

// setFields is a Set's template data as Fields: TemplateField, field by
// field, and TemplateData.
type setFields struct{ s *Set }

func (f setFields) Field(name string) (any, bool) { return f.s.TemplateField(name) }
func (f setFields) Map() map[string]any           { return f.s.TemplateData() }

// checkField compares a value TemplateField gave with TemplateData's, key by
// key for Fields (also for keys Map lacks).
func checkField(t *testing.T, path string, got, want any) {
	t.Helper()
	f, ok := got.(Fields)
	if !ok {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s = %#v, want %#v", path, got, want)
		}
		return
	}
	if m := f.Map(); !reflect.DeepEqual(m, want) {
		t.Fatalf("%s.Map() = %#v, want %#v", path, m, want)
	}
	wm := want.(map[string]any)
	// Names no map may have, or only some maps have, besides the map's own.
	keys := append(KnownNames(), "nope", "agent", "custom", "selection", "visibleRange",
		"contentBeforeSelection", "contentAfterSelection", "selectedRanges")
	for k := range wm {
		keys = append(keys, k)
	}
	for _, k := range keys {
		wv, has := wm[k]
		gv, ok := f.Field(k)
		if ok != has {
			t.Fatalf("%s.Field(%q) present %v, the map has it: %v", path, k, ok, has)
		}
		if has {
			checkField(t, path+"."+k, gv, wv)
		}
	}
}
