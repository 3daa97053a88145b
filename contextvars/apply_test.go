package contextvars

import (
	"reflect"
	"testing"
)

func TestApplyEditor(t *testing.T) {
	const content = "l1\nl2\nl3 αβ SEL γδ\nl4\nl5"
	sel := Range{Content: "SEL", StartLine: 3, StartColumn: 7, EndLine: 3, EndColumn: 10}
	with := func(r Range, before, after *string) Range {
		r.ContentBeforeSelection, r.ContentAfterSelection = before, after
		return r
	}
	tests := []struct {
		name          string
		content       string
		r             Range
		before, after *int
		want          Range
	}{
		{"unset drops given text", content, with(sel, ptr("x"), ptr("y")), nil, nil, sel},
		{"unset drops nothing derived", content, sel, nil, nil, sel},
		{"0 keeps the partial lines", content, sel, ptr(0), ptr(0), with(sel, ptr("l3 αβ "), ptr(" γδ"))},
		{"1 adds one line", content, sel, ptr(1), ptr(1), with(sel, ptr("l2\nl3 αβ "), ptr(" γδ\nl4"))},
		{"N bigger than available", content, sel, ptr(10), ptr(10), with(sel, ptr("l1\nl2\nl3 αβ "), ptr(" γδ\nl4\nl5"))},
		{"only before", content, sel, ptr(1), nil, with(sel, ptr("l2\nl3 αβ "), nil)},
		{"given text is cut, not derived", content, with(sel, ptr("a\nb\nc\nd"), ptr("e\nf\ng")), ptr(1), ptr(0),
			with(sel, ptr("c\nd"), ptr("e"))},
		{"given text shorter than N", content, with(sel, ptr("b"), ptr("")), ptr(5), ptr(5), with(sel, ptr("b"), ptr(""))},
		{"no content, no text", "", sel, ptr(1), ptr(1), sel},
		{"no positions", content, Range{Content: "SEL"}, ptr(1), ptr(1), Range{Content: "SEL"}},
		{"selection at the very start", content, Range{StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 1}, ptr(3), ptr(1),
			Range{StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 1, ContentBeforeSelection: ptr(""), ContentAfterSelection: ptr("l1\nl2")}},
		{"multi-line selection", content, Range{StartLine: 2, StartColumn: 2, EndLine: 4, EndColumn: 2}, ptr(0), ptr(0),
			Range{StartLine: 2, StartColumn: 2, EndLine: 4, EndColumn: 2, ContentBeforeSelection: ptr("l"), ContentAfterSelection: ptr("4")}},
		{"reversed positions", content, Range{StartLine: 4, StartColumn: 2, EndLine: 2, EndColumn: 2}, ptr(0), ptr(0),
			Range{StartLine: 4, StartColumn: 2, EndLine: 2, EndColumn: 2, ContentBeforeSelection: ptr("l"), ContentAfterSelection: ptr("4")}},
		{"positions beyond the file clamp", content, Range{StartLine: 99, StartColumn: 99, EndLine: 100, EndColumn: 1}, ptr(1), ptr(1),
			Range{StartLine: 99, StartColumn: 99, EndLine: 100, EndColumn: 1, ContentBeforeSelection: ptr("l4\nl5"), ContentAfterSelection: ptr("")}},
		{"column beyond the line end clamps", content, Range{StartLine: 2, StartColumn: 50, EndLine: 2, EndColumn: 60}, ptr(0), ptr(1),
			Range{StartLine: 2, StartColumn: 50, EndLine: 2, EndColumn: 60, ContentBeforeSelection: ptr("l2"), ContentAfterSelection: ptr("\nl3 αβ SEL γδ")}},
		{"negative column clamps to 1", content, Range{StartLine: 2, StartColumn: -3, EndLine: 2, EndColumn: 0}, ptr(0), ptr(0),
			Range{StartLine: 2, StartColumn: -3, EndLine: 2, EndColumn: 0, ContentBeforeSelection: ptr(""), ContentAfterSelection: ptr("l2")}},
		{"CRLF keeps the carriage return", "a\r\nb X\r\nc", Range{StartLine: 2, StartColumn: 3, EndLine: 2, EndColumn: 4}, ptr(1), ptr(1),
			Range{StartLine: 2, StartColumn: 3, EndLine: 2, EndColumn: 4, ContentBeforeSelection: ptr("a\r\nb "), ContentAfterSelection: ptr("\r\nc")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Set{ActiveEditor: &Editor{Content: tt.content, SelectedRanges: []Range{tt.r}}}
			s.Apply(NameActiveEditor, Options{ContentBeforeSelectionLines: tt.before, ContentAfterSelectionLines: tt.after})
			if got := s.ActiveEditor.SelectedRanges[0]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", showRange(got), showRange(tt.want))
			}
		})
	}
}

func showRange(r Range) string {
	show := func(p *string) string {
		if p == nil {
			return "nil"
		}
		return "\"" + *p + "\""
	}
	return r.Content + " before=" + show(r.ContentBeforeSelection) + " after=" + show(r.ContentAfterSelection)
}

func TestApplyEditorManyRanges(t *testing.T) {
	s := &Set{ActiveEditor: &Editor{Content: "a1\nb2\nc3\nd4", SelectedRanges: []Range{
		{StartLine: 2, StartColumn: 2, EndLine: 2, EndColumn: 3},
		{StartLine: 4, StartColumn: 1, EndLine: 4, EndColumn: 2},
	}}}
	s.Apply(NameActiveEditor, Options{ContentBeforeSelectionLines: ptr(0), ContentAfterSelectionLines: ptr(1)})
	r := s.ActiveEditor.SelectedRanges
	if *r[0].ContentBeforeSelection != "b" || *r[0].ContentAfterSelection != "\nc3" ||
		*r[1].ContentBeforeSelection != "" || *r[1].ContentAfterSelection != "4" {
		t.Errorf("got %s | %s", showRange(r[0]), showRange(r[1]))
	}
}

func TestApplyOthers(t *testing.T) {
	files := []PackageFile{{Filepath: "a"}, {Filepath: "b"}, {Filepath: "c"}}
	kbs := []KnowledgeBase{{KnowledgeBaseID: "k1"}, {KnowledgeBaseID: "k2", References: []Reference{{Chunk: "x"}}}, {KnowledgeBaseID: "k3"}}
	tests := []struct {
		name string
		in   *Set
		v    string
		o    Options
		want *Set
	}{
		{"maximumNumber keeps the first", &Set{PackageFiles: files}, NamePackageFiles, Options{MaximumNumber: ptr(2)},
			&Set{PackageFiles: files[:2]}},
		{"maximumNumber 0 keeps none", &Set{PackageFiles: files}, NamePackageFiles, Options{MaximumNumber: ptr(0)},
			&Set{PackageFiles: files[:0]}},
		{"maximumNumber above the count", &Set{PackageFiles: files}, NamePackageFiles, Options{MaximumNumber: ptr(9)},
			&Set{PackageFiles: files}},
		{"no maximumNumber", &Set{PackageFiles: files}, NamePackageFiles, Options{}, &Set{PackageFiles: files}},
		{"knowledgeBaseIds filters", &Set{KnowledgeBase: kbs}, NameKnowledgeBase, Options{KnowledgeBaseIDs: []string{"k3", "k2", "zz"}},
			&Set{KnowledgeBase: []KnowledgeBase{kbs[1], kbs[2]}}},
		{"knowledgeBaseIds matching none", &Set{KnowledgeBase: kbs}, NameKnowledgeBase, Options{KnowledgeBaseIDs: []string{"zz"}},
			&Set{KnowledgeBase: []KnowledgeBase{}}},
		{"recallByAgent keeps references", &Set{KnowledgeBase: kbs}, NameKnowledgeBase, Options{RecallByAgent: ptr(true)},
			&Set{KnowledgeBase: kbs}},
		{"absent variable", &Set{}, NameActiveEditor, Options{ContentBeforeSelectionLines: ptr(1)}, &Set{}},
		{"absent packageFiles", &Set{}, NamePackageFiles, Options{MaximumNumber: ptr(1)}, &Set{}},
		{"absent knowledgeBase", &Set{}, NameKnowledgeBase, Options{KnowledgeBaseIDs: []string{"a"}}, &Set{}},
		{"unknown variable", &Set{Other: map[string]any{"x": 1.0}}, "x", Options{MaximumNumber: ptr(0)}, &Set{Other: map[string]any{"x": 1.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Apply(tt.v, tt.o)
			if !reflect.DeepEqual(tt.in, tt.want) {
				t.Errorf("got  %#v\nwant %#v", tt.in, tt.want)
			}
		})
	}
}
