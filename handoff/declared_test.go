package handoff

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// securityEscalation is what a security agent may declare for the
// ESCALATION it accepts: the protocol's schema, plus a file and a line.
const securityEscalation = `{
  "$ref": "` + SchemaBaseURL + `data/escalation.schema.json",
  "properties": {"technical_details": {"required": ["file", "line"],
    "properties": {"file": {"type": "string"}, "line": {"type": "integer", "minimum": 1}}}}
}`

// escalationData returns ESCALATION data with the given technical details.
func escalationData(severity, details string) string {
	return `{"issue_category": "SECURITY_FINDING", "severity": "` + severity + `",
		"customer_info": {"user_id": "u1", "name": "Ada"}, "technical_details": ` + details + `}`
}

func TestDeclaredDataSchema(t *testing.T) {
	base, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := base.WithDataSchema(Escalation, json.RawMessage(securityEscalation))
	if err != nil {
		t.Fatal(err)
	}
	fromMap, err := NewValidator(map[Type]json.RawMessage{Escalation: json.RawMessage(securityEscalation)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		raw   []byte
		wants []string
	}{
		{"meets it", message(Escalation, escalationData("HIGH", `{"file": "db.go", "line": 12}`)), nil},
		{"misses it", message(Escalation, escalationData("HIGH", `{"file": "db.go", "line": 0}`)),
			[]string{"/payload/data/technical_details/line: minimum: got 0, want 1"}},
		// Both schemas' violations are listed, the shared one once.
		{"misses both", message(Escalation, escalationData("SEVERE", `{"symptoms": "leak"}`)), []string{
			"/payload/data/severity: value must be one of 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'",
			"/payload/data/technical_details/file: required property is missing",
			"/payload/data/technical_details/line: required property is missing"}},
		{"other type", message(StatusUpdate, `{"status": "DONE"}`), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range []*Validator{v, fromMap} {
				err := v.Validate(c.raw)
				if c.wants == nil {
					if err != nil {
						t.Fatalf("Validate: %v", err)
					}
					continue
				}
				checkViolations(t, err, c.wants)
			}
		})
	}
	// The validator it was derived from is unchanged.
	if err := base.Validate(message(Escalation, escalationData("HIGH", `{}`))); err != nil {
		t.Errorf("the base validator checks the declared schema: %v", err)
	}
}

func TestDeclaredSchemaErrors(t *testing.T) {
	const prefix = "handoff: the data schema declared for ESCALATION"
	for _, c := range []struct {
		typ    Type
		schema string
		want   string
	}{
		{Escalation, `{"type": "objekt", "properties": {"a": {"minLength": -1}}}`, prefix + " is not a valid JSON Schema: " +
			"/properties/a/minLength: minimum: got -1, want 0; " +
			"/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'"},
		{Escalation, `{"pattern": "("}`, prefix + " is not a valid JSON Schema: /pattern: '(' is not valid regex: " +
			"error parsing regexp: missing closing ): `(`"},
		{Escalation, `{`, prefix + ": not JSON: unexpected EOF"},
		{Escalation, `{"$ref": "https://example.com/x.json"}`, prefix + `: failing loading "https://example.com/x.json": ` +
			"only the hand-off schemas (" + SchemaBaseURL + "...) may be referenced"},
		{Escalation, `{"$ref": "#/$defs/missing"}`, prefix + `: json-pointer in "the declared schema#/$defs/missing" not found`},
		{"ESCALATE", `{}`, "handoff: the data schema declared for ESCALATE: unknown handoff_type (known: TASK_TRANSFER, " +
			"REQUEST_INFORMATION, PROVIDE_INFORMATION, ESCALATION, NOTIFICATION, STATUS_UPDATE, APPROVAL_REQUEST)"},
	} {
		_, err := NewValidator(map[Type]json.RawMessage{c.typ: json.RawMessage(c.schema)})
		var se *SchemaError
		if !errors.As(err, &se) || se.Type != c.typ || err.Error() != c.want {
			t.Errorf("%s:\n\terror %v\n\twant  %s", c.schema, err, c.want)
		}
	}
	// Every refused schema is reported.
	_, err := NewValidator(map[Type]json.RawMessage{Escalation: json.RawMessage(`{"type": 1}`),
		Notification: json.RawMessage(`[`)})
	if err == nil || !strings.Contains(err.Error(), "ESCALATION") || !strings.Contains(err.Error(), "NOTIFICATION") {
		t.Errorf("two bad schemas: %v", err)
	}
}

// TestConcurrentDecode: one validator serves many goroutines (run with -race).
func TestConcurrentDecode(t *testing.T) {
	v, err := NewValidator(map[Type]json.RawMessage{Escalation: json.RawMessage(securityEscalation)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, c := range dataCases {
		wg.Go(func() {
			if _, err := v.Decode(message(c.typ, c.data)); (err == nil) != (c.wants == nil) && c.typ != Escalation {
				t.Errorf("%s/%s: %v", c.typ, c.name, err)
			}
		})
	}
	wg.Wait()
}

func BenchmarkDecode(b *testing.B) {
	v, err := NewValidator(map[Type]json.RawMessage{Escalation: json.RawMessage(securityEscalation)})
	if err != nil {
		b.Fatal(err)
	}
	raw := message(Escalation, escalationData("HIGH", `{"file": "db.go", "line": 12}`))
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := v.Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}
