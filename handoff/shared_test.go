package handoff

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestNewValidatorCompilesNothing: building a Validator without declared
// schemas, one per hand-off type as loading agents that accept them does,
// compiles nothing (the message schema is compiled on the first message,
// once for all Validators), and the Validators built still check messages
// and their declared data schemas. It runs in a process of its own, where
// nothing compiled the message schema before.
func TestNewValidatorCompilesNothing(t *testing.T) {
	if os.Getenv("HANDOFF_TEST_FRESH") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewValidatorCompilesNothing$", "-test.count=1")
		cmd.Env = append(os.Environ(), "HANDOFF_TEST_FRESH=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vs := make([]*Validator, 0, len(Types()))
	for range Types() {
		v, err := NewValidator(nil)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
		t.Errorf("%d validators allocated %d bytes, want at most 16 KiB", len(vs), n)
	}
	declared, err := NewValidator(map[Type]json.RawMessage{TaskTransfer: json.RawMessage(`{"required": ["repo"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Declares(TaskTransfer) || !declared.Declares(TaskTransfer) {
		t.Errorf("declared: %v, %v; want false, true", vs[0].Declares(TaskTransfer), declared.Declares(TaskTransfer))
	}
	if _, err := vs[0].Decode([]byte(`{}`)); err == nil {
		t.Error("an empty message passed the message schema")
	}
}
