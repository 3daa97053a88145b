package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// FuzzDecode: the decoder never panics; it refuses with ErrMalformed,
// ErrTooLarge or a *ValidationError and nothing else (another error means
// the schema accepted what the Go types cannot hold); and a message it
// accepts encodes to a valid message whose encoding is stable.
func FuzzDecode(f *testing.F) {
	seed, err := os.ReadFile("testdata/seed_example.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	for _, c := range dataCases {
		f.Add(message(c.typ, c.data))
	}
	for _, s := range []string{``, `{}`, `[]`, `null`, "{\"a\":\"\xff\"}", `{"metadata":1} x`,
		`{"metadata":{"timestamp":"2023-10-27T10:30:00\u002e5Z"}}`} {
		f.Add([]byte(s))
	}
	v, err := NewValidator(map[Type]json.RawMessage{Escalation: json.RawMessage(securityEscalation)})
	if err != nil {
		f.Fatal(err)
	}
	v = v.WithMaxBytes(64 << 10)
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := v.Decode(raw)
		if err != nil {
			var ve *ValidationError
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) && !errors.As(err, &ve) {
				t.Fatalf("Decode(%q): unexpected error %v", raw, err)
			}
			if ve != nil && len(ve.Violations) == 0 {
				t.Fatalf("Decode(%q): a ValidationError without violations", raw)
			}
			return
		}
		once, err := v.Encode(m)
		if err != nil {
			t.Fatalf("Decode(%q) accepted it, its encoding is refused: %v", raw, err)
		}
		m2, err := v.Decode(once)
		if err != nil {
			t.Fatal(err)
		}
		twice, err := json.Marshal(m2)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("encodings differ (%v):\n%s\n%s", err, once, twice)
		}
	})
}
