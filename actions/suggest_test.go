package actions

import "testing"

func TestClosest(t *testing.T) {
	tests := []struct {
		name string
		want string
		ok   bool
	}{
		{"lable", "labels", true},
		{"LABELS", "labels", true},
		{"pid", "pId", true},
		{"pd", "pId", true},  // "id" is as near, but too short to guess
		{"ipd", "pId", true}, // likewise
		{"Id", "id", true},
		{"ip", "", false}, // short names only match ignoring case
		{"tpye", "type", true},
		{"desciption", "description", true},
		{"path", "", false},
		{"size", "", false},
		{"game", "name", true}, // the price of catching typos: rename such a property
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := closest(tt.name, nodeFields)
		if got != tt.want || ok != tt.ok {
			t.Errorf("closest(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
