package hub

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
)

// TestFallbackActionChecked (issue 25, item 7): a fallback_action is an
// agent of the gateway, or one of its commands, that can run the message.
// One that names nothing runnable (the seed's own "notify_customer_of_delay")
// is refused when the message is sent, 422 INVALID_HANDOFF with a violation
// at the field, and nothing is queued; before, it was accepted (202) and
// the message died when its fallback was due.
func TestFallbackActionChecked(t *testing.T) {
	h := newHub(t)
	tests := []struct {
		action string
		want   string // the violation's message; "" for accepted
	}{
		{"notify_customer_of_delay", `"notify_customer_of_delay" names no agent of this gateway`},
		{"logger/nope", `agent "logger" has no command "nope" (it has default)`},
		{"strict/default", ""},
		{"logger", ""},
		{"backup/take", ""},
		{"backup", ""}, // it has a default command
	}
	for i, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			id := "55555555-5555-4555-8555-55555555555" + string(rune('0'+i))
			msg, err := handoff.New(time.Now(), "client", handoff.Recipients{"a1"}, handoff.Notification,
				map[string]any{"event_type": "build", "message": "m"}, handoff.Origin{TaskID: "t"})
			if err != nil {
				t.Fatal(err)
			}
			msg.Metadata.MessageID = id
			msg.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{FallbackAction: tc.action}
			msg.Fill(time.Now())
			raw, err := json.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = h.Submit(t.Context(), alice, raw)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e := agentError(t, err, apierr.CodeInvalidHandoff)
			if e.Status != http.StatusUnprocessableEntity || len(e.Violations) != 1 ||
				e.Violations[0].Pointer != "/instructions/failure_handling_strategy/fallback_action" ||
				!strings.HasPrefix(e.Violations[0].Message, tc.want) || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("refusal: %d %q %+v", e.Status, e.Message, e.Violations)
			}
			agentError(t, func() error { _, err := h.Get(t.Context(), admin, id); return err }(), apierr.CodeNotFound)
		})
	}
}
