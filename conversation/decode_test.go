package conversation

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// decodeCases are stored records: what the writer makes (see
// TestStoredRecord and seedOperations), a tombstone, a legacy record, and
// what encoding/json accepted beyond it (spacing, escapes, a repeated
// member, bytes that are not UTF-8, members of another case).
var decodeCases = map[string]string{
	"written": `{"context":{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":2,"owner":"alice","messages":[{"role":"assistant","content":"x","toolCalls":[{"id":"1"}]}],"state":{},"metadata":{"k":"v"}},` +
		`"changes":[{"version":1,"at":"2026-01-02T03:04:05Z","operation":"CREATE"},{"version":2,"at":"2026-01-02T03:04:05Z","operation":"ADD_MESSAGE","messages":[{"role":"assistant","content":"x","toolCalls":[{"id":"1"}]}]}],` +
		`"messageMeta":[{"id":"m1","type":"MODEL_RESPONSE","time":"2026-01-02T03:04:05.123456789Z"}]}`,
	"state and log": `{"context":{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:17Z","version":9,"owner":"alice",` +
		`"messages":[{"role":"assistant","content":"hello"}],` +
		`"state":{"list":[1,{"x":[2]}],"new":{},"s":"str","n":null,"big":12345678901234567890,"f":-1.5e-7,"userPreferences":{"language":"英文","timezone":"Asia/Shanghai"}},"metadata":{}},` +
		`"changes":[{"version":4,"at":"2026-01-02T03:04:08Z","operation":"UPDATE_STATE","state":{"list":[1,{"x":1}]}},` +
		`{"version":5,"at":"2026-01-02T03:04:09Z","operation":"UPDATE_STATE","path":"userPreferences.language","value":"英文"},` +
		`{"version":8,"at":"2026-01-02T03:04:15Z","operation":"UPDATE_STATE","path":"new.deep","value":null},` +
		`{"version":9,"at":"2026-01-02T03:04:17Z","operation":"CLEAR_HISTORY","beforeTimestamp":"2026-01-02T03:04:07Z","dropped":3}],` +
		`"messageMeta":[{"id":"msg_002","type":"MODEL_RESPONSE","time":"2026-01-02T03:04:07Z"}]}`,
	"tombstone": `{"deleted":true,"owner":"alice"}`,
	"legacy":    `{"context":{"contextId":"old","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":2,"owner":"alice","messages":[{"role":"user","content":"a"}],"state":{},"metadata":{}}}`,
	"lenient":   "{ \"context\" : {\"contextId\":\"c\\u0031\",\"version\":1,\"version\":3,\"owner\":\"a\\ud800\xff\",\"Messages\":[{\"ROLE\":\"user\",\"content\":\"\\u00e9\\n\",\"toolCalls\" : [ {\"id\" : 1} ] }],\"state\":{\"k\":\"\xc3\"}} ,\"changes\":null,\"extra\":{\"x\":[1,2]}}",
	"empty":     `{}`,
}

// TestDecodeRecordAsEncodingJSON: decodeRecord reads every record as
// encoding/json's Unmarshal did, and without the log the same less the log.
func TestDecodeRecordAsEncodingJSON(t *testing.T) {
	for name, raw := range decodeCases {
		t.Run(name, func(t *testing.T) {
			checkDecode(t, []byte(raw))
		})
	}
}

// FuzzDecodeRecord: every record the writer can store decodes with
// decodeRecord as with encoding/json. The input, when encoding/json
// decodes it as a record, is encoded again as write encodes (so a stored
// record is never a repeated member or a stray case: those are
// TestDecodeRecordAsEncodingJSON's). A record decodeRecord refuses is
// read as broken (ErrUnreadable, deletable), never as something else.
func FuzzDecodeRecord(f *testing.F) {
	for _, raw := range decodeCases {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var rec record
		if json.Unmarshal(raw, &rec) != nil {
			return
		}
		stored, err := json.Marshal(&rec)
		if err != nil {
			return // a float encoding/json cannot encode: never stored
		}
		checkDecode(t, stored)
	})
}

func checkDecode(t *testing.T, raw []byte) {
	t.Helper()
	var want record
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Skip("encoding/json refuses it too:", err)
	}
	got, err := decodeRecord(raw, true)
	if err != nil {
		t.Fatalf("decodeRecord(%q): %v; encoding/json decodes it", raw, err)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("decodeRecord(%q)\n= %s\nencoding/json: %s", raw, show(got), show(&want))
	}
	view, err := decodeRecord(raw, false)
	if err != nil {
		t.Fatalf("decodeRecord(%q) without the log: %v", raw, err)
	}
	want.Changes = nil
	if !reflect.DeepEqual(view, &want) {
		t.Fatalf("decodeRecord(%q) without the log\n= %s\nencoding/json: %s", raw, show(view), show(&want))
	}
}

// show is rec as a test failure shows it: its fields and its context's.
func show(rec *record) string {
	s := fmt.Sprintf("%+v", *rec)
	if rec.Context != nil {
		s += fmt.Sprintf(" context %+v", *rec.Context)
	}
	return s
}
