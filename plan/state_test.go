package plan

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestStateSetGet(t *testing.T) {
	init := map[string]any{"user": map[string]any{"name": "ann"}, "list": []any{map[string]any{"a": 1}, "x"}}
	st := NewState(init)
	init["user"].(map[string]any)["name"] = "changed" // NewState deep-copies
	tests := []struct {
		set     Path
		value   any
		get     Path
		want    any
		wantErr string
	}{
		{get: Path{"user", "name"}, want: "ann"},
		{get: Path{"state", "user", "name"}, want: "ann"},
		{set: Path{"state", "user", "age"}, value: 7, get: Path{"user", "age"}, want: 7},
		{set: Path{"a", "b", "c"}, value: "deep", get: Path{"state", "a"}, want: map[string]any{"b": map[string]any{"c": "deep"}}},
		{set: Path{"list", "0", "a"}, value: 2, get: Path{"list"}, want: []any{map[string]any{"a": 2}, "x"}},
		{set: Path{"list", "2"}, value: 1, wantErr: `state.list is a list of 2, "2" is not an index in it`},
		{set: Path{"list", "1", "y"}, value: 1, wantErr: "state.list.1 is a string, not a map"},
		{set: Path{"user", "name", "first"}, value: 1, wantErr: "setting state.user.name.first: state.user.name is a string, not a map"},
		{set: Path{"state"}, value: 1, wantErr: "empty path"},
		{set: Path{}, value: 1, wantErr: "empty path"},
		{set: Path{"user"}, value: "replaced", get: Path{"user"}, want: "replaced"},
		{set: Path{"state", "state", "x"}, value: 1, get: Path{"state", "state"}, want: map[string]any{"x": 1}},
	}
	for i, tt := range tests {
		if tt.set != nil {
			err := st.Set(tt.set, tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("%d: Set(%v) error = %v, want containing %q", i, tt.set, err, tt.wantErr)
				}
				continue
			}
			if err != nil {
				t.Errorf("%d: Set(%v): %v", i, tt.set, err)
			}
		}
		if got, ok := st.Get(tt.get); !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%d: Get(%v) = %#v, %v; want %#v", i, tt.get, got, ok, tt.want)
		}
	}
	if _, ok := st.Get(Path{"nope"}); ok {
		t.Error("Get of a missing key reported ok")
	}
}

func TestStateCopies(t *testing.T) {
	st := NewState(nil)
	v := map[string]any{"list": []any{1}}
	if err := st.Set(Path{"v"}, v); err != nil {
		t.Fatal(err)
	}
	v["list"].([]any)[0] = 2
	got, _ := st.Get(Path{"v"})
	got.(map[string]any)["list"].([]any)[0] = 3
	snap := st.Snapshot()
	snap["v"].(map[string]any)["new"] = true
	want := map[string]any{"v": map[string]any{"list": []any{1}}}
	if s := st.Snapshot(); !reflect.DeepEqual(s, want) {
		t.Errorf("state = %#v, want %#v", s, want)
	}
}

func TestStateZeroValue(t *testing.T) {
	var st State
	if err := st.Set(Path{"a"}, 1); err != nil {
		t.Fatal(err)
	}
	if got := st.Snapshot(); !reflect.DeepEqual(got, map[string]any{"a": 1}) {
		t.Errorf("snapshot = %v", got)
	}
}

// TestStateConcurrent runs writers and readers together; -race checks the sharing.
func TestStateConcurrent(t *testing.T) {
	st := NewState(map[string]any{"shared": map[string]any{}})
	var wg sync.WaitGroup
	const writers, n = 8, 100
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				if err := st.Set(Path{"shared", fmt.Sprintf("w%d", w), fmt.Sprint(i)}, i); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				snap := st.Snapshot()
				snap["shared"].(map[string]any)["mine"] = i // a private copy
				st.Get(Path{"shared"})
			}
		}()
	}
	wg.Wait()
	shared, _ := st.Get(Path{"shared"})
	m := shared.(map[string]any)
	if len(m) != writers {
		t.Fatalf("%d writer maps, want %d", len(m), writers)
	}
	for k, v := range m {
		if len(v.(map[string]any)) != n {
			t.Errorf("%s has %d keys, want %d (a write was lost)", k, len(v.(map[string]any)), n)
		}
	}
}
