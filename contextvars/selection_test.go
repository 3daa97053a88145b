package contextvars

import "testing"

func TestParseSelection(t *testing.T) {
	tests := []struct {
		in   string
		want Selection
		err  string
	}{
		{"3:4-5:6", Selection{3, 4, 5, 6}, ""},
		{" 3:4 - 3:4 ", Selection{3, 4, 3, 4}, ""},
		{"10-20", Selection{10, 1, 20, 0}, ""},
		{"7", Selection{7, 1, 7, 0}, ""},
		{"7:3", Selection{7, 3, 7, 3}, ""},
		{"2:5-4", Selection{2, 5, 4, 0}, ""},
		{"2-4:3", Selection{2, 1, 4, 3}, ""},
		{"5:9-5", Selection{5, 9, 5, 0}, ""},
		{"", Selection{}, `selection "": missing line number (want L1:C1-L2:C2, L1-L2 or L)`},
		{"0", Selection{}, `selection "0": line numbers count from 1, got 0`},
		{"1:0", Selection{}, `selection "1:0": column numbers count from 1, got 0`},
		{"a-b", Selection{}, `selection "a-b": line "a" is not a number`},
		{"-3", Selection{}, `selection "-3": missing line number (want L1:C1-L2:C2, L1-L2 or L)`},
		{"3-", Selection{}, `selection "3-": missing line number (want L1:C1-L2:C2, L1-L2 or L)`},
		{"+3", Selection{}, `selection "+3": line "+3" is not a number`},
		{"5-3", Selection{}, `selection "5-3": the end 3 comes before the start 5:1`},
		{"5:4-5:2", Selection{}, `selection "5:4-5:2": the end 5:2 comes before the start 5:4`},
		{"1:2:3", Selection{}, `selection "1:2:3": column "2:3" is not a number`},
		{"1-2-3", Selection{}, `selection "1-2-3": line "2-3" is not a number`},
		{"99999999999", Selection{}, `selection "99999999999": line 99999999999 is too large`},
	}
	for _, tt := range tests {
		got, err := ParseSelection(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseSelection(%q) error = %v\nwant %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSelection(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestSelectionString(t *testing.T) {
	for sel, want := range map[Selection]string{
		{3, 4, 5, 6}: "3:4-5:6", {7, 1, 7, 0}: "7", {10, 1, 20, 0}: "10-20", {7, 3, 7, 3}: "7:3", {2, 5, 4, 0}: "2:5-4",
	} {
		if got := sel.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", sel, got, want)
		}
	}
}
