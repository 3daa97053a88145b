package contextvars

import (
	"reflect"
	"strings"
	"testing"
)

func byteCount(s string) int { return len(s) }

// cutSet is a set with something in every place Cut looks.
func cutSet() *Set {
	return &Set{
		UserInputPrompt: "why?", promptGiven: true,
		UserInfo:      &UserInfo{ID: "u"},
		VCS:           &VCS{Type: "git"},
		GlobalPrompts: []Prompt{{Role: "system", Content: "rule"}},
		KnowledgeBase: []KnowledgeBase{
			{KnowledgeBaseID: "k1", References: []Reference{{Score: 0.9, Chunk: "aaaa"}, {Score: 0.1, Chunk: "bb"}}},
			{KnowledgeBaseID: "k2", References: []Reference{{Score: 0.5, Chunk: "ccc"}}},
		},
		PackageFiles: []PackageFile{{Filepath: "go.mod", Content: "m"}, {Filepath: "a/package.json", Content: "{}"},
			{Filepath: "b/Cargo.toml", Content: "[p]"}},
		ActiveEditor: &Editor{
			Content:   "l1\nl2\nl3 SEL\nl4\nl5",
			StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 7,
			SelectedRanges: []Range{{Content: "SEL", StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 7,
				ContentBeforeSelection: ptr("b1\nb2\nl3 "), ContentAfterSelection: ptr("\na1\na2")}},
			VisibleRange: &Span{Content: "v2\nl3 SEL\nv4\nv5", StartLine: 2, StartColumn: 1, EndLine: 5, EndColumn: 3},
		},
	}
}

func TestCutOrder(t *testing.T) {
	s := cutSet()
	var got []string
	for range 100 {
		lines := s.Cut(1, byteCount)
		if lines == nil {
			break
		}
		got = append(got, strings.Join(lines, " | "))
	}
	want := []string{
		"knowledgeBase: dropped 1 reference with score <= 0.1 (~2 tokens)",
		"knowledgeBase: dropped 1 reference with score <= 0.5 (~3 tokens)",
		"knowledgeBase: dropped 1 reference with score <= 0.9 (~4 tokens)",
		"packageFiles: dropped 1 file beyond the first: b/Cargo.toml (~15 tokens)",
		"packageFiles: dropped 1 file beyond the first: a/package.json (~16 tokens)",
		"activeEditor.content: dropped 1 line far from the selection, kept lines 1-4 (~2 tokens)",
		"activeEditor.content: dropped 1 line far from the selection, kept lines 2-4 (~2 tokens)",
		"activeEditor.content: dropped 1 line far from the selection, kept lines 2-3 (~2 tokens)",
		"activeEditor.content: dropped 1 line far from the selection, kept lines 3-3 (~2 tokens)",
		"activeEditor.visibleRange: dropped 1 line outside the selection, kept lines 2-4 (~2 tokens)",
		"activeEditor.visibleRange: dropped 1 line outside the selection, kept lines 2-3 (~2 tokens)",
		"activeEditor.visibleRange: dropped 1 line outside the selection, kept lines 3-3 (~2 tokens)",
		"activeEditor.selectedRanges: dropped 1 line of the text before/after the selection (~2 tokens)",
		"activeEditor.selectedRanges: dropped 1 line of the text before/after the selection (~2 tokens)",
		"activeEditor.selectedRanges: dropped 1 line of the text before/after the selection (~2 tokens)",
		"activeEditor.selectedRanges: dropped 1 line of the text before/after the selection (~2 tokens)",
		"activeEditor.selectedRanges: dropped 1 line of the text before/after the selection (~3 tokens)",
		"packageFiles: dropped 1 file (the last one): go.mod (~7 tokens)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cuts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	protected := cutSet()
	if s.UserInputPrompt != protected.UserInputPrompt || !reflect.DeepEqual(s.UserInfo, protected.UserInfo) ||
		!reflect.DeepEqual(s.VCS, protected.VCS) || !reflect.DeepEqual(s.GlobalPrompts, protected.GlobalPrompts) {
		t.Errorf("a protected variable was cut: %#v", s)
	}
	e := s.ActiveEditor
	wantEditor := &Editor{Content: "l3 SEL", StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 7,
		SelectedRanges: []Range{{Content: "SEL", StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 7,
			ContentAfterSelection: ptr("")}}, // an empty text has nothing left to cut
		VisibleRange: &Span{Content: "l3 SEL", StartLine: 3, StartColumn: 1, EndLine: 3, EndColumn: 7}}
	if !reflect.DeepEqual(e, wantEditor) {
		t.Errorf("editor after cutting:\n%#v\nwant\n%#v", e, wantEditor)
	}
	if s.PackageFiles == nil || len(s.PackageFiles) != 0 || len(s.KnowledgeBase) != 2 ||
		s.KnowledgeBase[0].References == nil || len(s.KnowledgeBase[0].References)+len(s.KnowledgeBase[1].References) != 0 {
		t.Errorf("emptied variables should stay present and empty: %#v %#v", s.PackageFiles, s.KnowledgeBase)
	}
	if !s.Has(NamePackageFiles) || !s.Has(NameKnowledgeBase) {
		t.Errorf("emptied variables should stay present")
	}
}

func TestCutBatches(t *testing.T) {
	s := cutSet()
	got := s.Cut(30, byteCount)
	want := []string{
		"knowledgeBase: dropped 3 references with score <= 0.9 (~9 tokens)",
		"packageFiles: dropped 2 files beyond the first: b/Cargo.toml, a/package.json (~31 tokens)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cut(30):\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = s.Cut(5, byteCount)
	want = []string{"activeEditor.content: dropped 3 lines far from the selection, kept lines 2-3 (~6 tokens)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cut(5):\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	got = s.Cut(1000, byteCount)
	if len(got) != 4 {
		t.Errorf("Cut(1000) should empty every remaining stage, got %q", got)
	}
	if got := s.Cut(1, byteCount); got != nil {
		t.Errorf("nothing left, but Cut = %q", got)
	}
}

func TestCutSelectionOutsideVisibleRange(t *testing.T) {
	s := &Set{ActiveEditor: &Editor{Content: "x", SelectedRanges: []Range{{Content: "x", StartLine: 10, EndLine: 10}},
		VisibleRange: &Span{Content: "a\nb\nc", StartLine: 1, StartColumn: 1, EndLine: 3, EndColumn: 2}}}
	got := s.Cut(100, byteCount)
	want := []string{"activeEditor.visibleRange: dropped it: 3 lines outside the selection (~3 tokens)"}
	if !reflect.DeepEqual(got, want) || s.ActiveEditor.VisibleRange != nil {
		t.Errorf("Cut = %q, visible %#v", got, s.ActiveEditor.VisibleRange)
	}
}

func TestCutThenApplyUsesFileLines(t *testing.T) {
	s := &Set{ActiveEditor: &Editor{Content: "l1\nl2\nl3 SEL\nl4\nl5",
		SelectedRanges: []Range{{Content: "SEL", StartLine: 3, StartColumn: 4, EndLine: 3, EndColumn: 7}}}}
	s.Cut(3, byteCount) // drops l5 and l1
	if s.ActiveEditor.Content != "l2\nl3 SEL\nl4" {
		t.Fatalf("content = %q", s.ActiveEditor.Content)
	}
	s.Apply(NameActiveEditor, Options{ContentBeforeSelectionLines: ptr(5), ContentAfterSelectionLines: ptr(0)})
	r := s.ActiveEditor.SelectedRanges[0]
	if *r.ContentBeforeSelection != "l2\nl3 " || *r.ContentAfterSelection != "" {
		t.Errorf("after Cut, Apply derived %s", showRange(r))
	}
	if got := s.Cut(1, byteCount); len(got) != 1 || !strings.Contains(got[0], "kept lines 2-3") {
		t.Errorf("second Cut = %q", got)
	}
}

func TestCutCursorOnly(t *testing.T) {
	s := &Set{ActiveEditor: &Editor{Content: "ab\ncd\nef\ngh", CursorOffset: 4}} // the cursor is on line 2
	s.Cut(100, byteCount)
	if s.ActiveEditor.Content != "cd" {
		t.Errorf("content = %q", s.ActiveEditor.Content)
	}
}

func TestCutNothing(t *testing.T) {
	s := &Set{UserInputPrompt: "long prompt", GlobalPrompts: []Prompt{{Content: "rules"}}, UserInfo: &UserInfo{}}
	if got := s.Cut(10, byteCount); got != nil {
		t.Errorf("Cut = %q, want nil", got)
	}
}
