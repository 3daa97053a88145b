package contextvars

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParseOptions(t *testing.T) {
	tests := []struct {
		name  string
		v     string
		raw   map[string]any
		want  Options
		warns []string
		err   string
	}{
		{"none", NameActiveEditor, nil, Options{}, nil, ""},
		{"editor from YAML", NameActiveEditor, map[string]any{"contentBeforeSelectionLines": 3, "contentAfterSelectionLines": 0},
			Options{ContentBeforeSelectionLines: ptr(3), ContentAfterSelectionLines: ptr(0)}, nil, ""},
		{"editor from JSON", NameActiveEditor, map[string]any{"contentBeforeSelectionLines": 3.0},
			Options{ContentBeforeSelectionLines: ptr(3)}, nil, ""},
		{"json.Number and int64", NamePackageFiles, map[string]any{"maximumNumber": json.Number("7")},
			Options{MaximumNumber: ptr(7)}, nil, ""},
		{"uint64", NamePackageFiles, map[string]any{"maximumNumber": uint64(2)}, Options{MaximumNumber: ptr(2)}, nil, ""},
		{"null is unset", NamePackageFiles, map[string]any{"maximumNumber": nil}, Options{}, nil, ""},
		{"knowledge base", NameKnowledgeBase, map[string]any{"knowledgeBaseIds": []any{"a", "b"}, "recallByAgent": true},
			Options{KnowledgeBaseIDs: []string{"a", "b"}, RecallByAgent: ptr(true)}, nil, ""},
		{"ids as []string", NameKnowledgeBase, map[string]any{"knowledgeBaseIds": []string{"a"}},
			Options{KnowledgeBaseIDs: []string{"a"}}, nil, ""},
		{"typo", NamePackageFiles, map[string]any{"maximumNumbr": 3}, Options{},
			[]string{`unknown resolver option "maximumNumbr" (ignored); did you mean "maximumNumber"?`}, ""},
		{"short typo", NameActiveEditor, map[string]any{"contentBeforeLines": 3}, Options{},
			[]string{`unknown resolver option "contentBeforeLines" (ignored); did you mean "contentBeforeSelectionLines"?`}, ""},
		{"unknown without suggestion", NameActiveEditor, map[string]any{"zzz": 1}, Options{},
			[]string{`unknown resolver option "zzz" (ignored)`}, ""},
		{"meaningless for this variable", NameUserInfo, map[string]any{"maximumNumber": 3, "recallByAgent": "x"}, Options{},
			[]string{`resolver option "maximumNumber" means nothing for this variable (ignored)`,
				`resolver option "recallByAgent" means nothing for this variable (ignored)`}, ""},
		{"another variable's option", NameActiveEditor, map[string]any{"maximumNumber": 3}, Options{},
			[]string{`resolver option "maximumNumber" means nothing for this variable (ignored)`}, ""},
		{"unknown variable", "ticket", map[string]any{"maximumNumber": 3}, Options{},
			[]string{`resolver option "maximumNumber" means nothing for this variable (ignored)`}, ""},
		{"negative", NamePackageFiles, map[string]any{"maximumNumber": -1}, Options{}, nil,
			`resolver option "maximumNumber": expected a non-negative integer, got -1`},
		{"fraction", NameActiveEditor, map[string]any{"contentAfterSelectionLines": 1.5}, Options{}, nil,
			`resolver option "contentAfterSelectionLines": expected a non-negative integer, got number 1.5`},
		{"string number", NameActiveEditor, map[string]any{"contentAfterSelectionLines": "3"}, Options{}, nil,
			`resolver option "contentAfterSelectionLines": expected a non-negative integer, got string "3"`},
		{"bool as string", NameKnowledgeBase, map[string]any{"recallByAgent": "yes"}, Options{}, nil,
			`resolver option "recallByAgent": expected true or false, got string "yes"`},
		{"ids not a list", NameKnowledgeBase, map[string]any{"knowledgeBaseIds": "a"}, Options{}, nil,
			`resolver option "knowledgeBaseIds": expected a list of strings, got string "a"`},
		{"ids with a number", NameKnowledgeBase, map[string]any{"knowledgeBaseIds": []any{"a", 1}}, Options{}, nil,
			`resolver option "knowledgeBaseIds": element 1: expected a string, got number 1`},
		{"two errors, sorted", NameActiveEditor, map[string]any{"contentBeforeSelectionLines": -2, "contentAfterSelectionLines": true}, Options{}, nil,
			"resolver option \"contentAfterSelectionLines\": expected a non-negative integer, got boolean true\n" +
				"resolver option \"contentBeforeSelectionLines\": expected a non-negative integer, got -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, warns, err := ParseOptions(tt.v, tt.raw)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if !reflect.DeepEqual(o, tt.want) {
				t.Errorf("options = %+v, want %+v", o, tt.want)
			}
			if !reflect.DeepEqual(warns, tt.warns) {
				t.Errorf("warnings = %q\nwant %q", warns, tt.warns)
			}
		})
	}
}

func TestSuggestName(t *testing.T) {
	for in, want := range map[string]string{"activeEdtor": "activeEditor", "activeEditor": "", "vsc": "vcs",
		"userinfo": "userInfo", "completelyDifferent": "", "packageFile": "packageFiles"} {
		if got := SuggestName(in); got != want {
			t.Errorf("SuggestName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKnownNamesIsFresh(t *testing.T) {
	a := KnownNames()
	a[0] = "changed"
	if b := KnownNames(); b[0] != NameUserInputPrompt || len(b) != 7 {
		t.Errorf("KnownNames = %q", b)
	}
}
