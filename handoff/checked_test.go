package handoff

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeChecked: a message Decode accepted decodes with DecodeChecked
// to the same Message, a member repeated included (its last copy, as the
// schemas saw it); input that is not JSON is still refused.
func TestDecodeChecked(t *testing.T) {
	seed, err := os.ReadFile("testdata/seed_example.json")
	if err != nil {
		t.Fatal(err)
	}
	notification := string(message(Notification, `{"event_type": "build", "message": "done"}`))
	repeated := strings.Replace(notification, `"payload":`, `"payload": {"handoff_type": "NOTIFICATION", "data": {"event_type": "x", "message": "y", "extra": 1}}, "payload":`, 1)
	for _, tc := range []struct{ name, raw string }{
		{"seed", string(seed)},
		{"notification", notification},
		{"a member repeated", repeated},
	} {
		want, err := Decode([]byte(tc.raw))
		if err != nil {
			t.Fatalf("%s: Decode: %v", tc.name, err)
		}
		got, err := DecodeChecked([]byte(tc.raw))
		if err != nil {
			t.Fatalf("%s: DecodeChecked: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s: DecodeChecked\n%s\nDecode\n%s", tc.name, g, w)
		}
	}
	if _, err := DecodeChecked([]byte(`{"metadata": `)); !errors.Is(err, ErrMalformed) {
		t.Errorf("not JSON: %v, want ErrMalformed", err)
	}
}

// TestDeclares: a Validator declares the types of its extra data schemas
// and of WithDataSchema, no other.
func TestDeclares(t *testing.T) {
	plain, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(map[Type]json.RawMessage{Escalation: json.RawMessage(securityEscalation)})
	if err != nil {
		t.Fatal(err)
	}
	w, err := plain.WithDataSchema(Notification, json.RawMessage(`{"type": "object"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		v    *Validator
		t    Type
		want bool
	}{
		{"none declared", plain, Escalation, false},
		{"declared", v, Escalation, true},
		{"another type", v, Notification, false},
		{"WithDataSchema", w, Notification, true},
		{"WithDataSchema leaves its source", plain, Notification, false},
	} {
		if got := tc.v.Declares(tc.t); got != tc.want {
			t.Errorf("%s: Declares(%s) = %v, want %v", tc.name, tc.t, got, tc.want)
		}
	}
}
