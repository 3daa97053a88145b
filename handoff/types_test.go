package handoff

import "testing"

func TestTypesAndPriorities(t *testing.T) {
	for _, typ := range Types() {
		if !typ.Valid() {
			t.Errorf("%s not valid", typ)
		}
	}
	if Type("ESCALATE").Valid() || Escalation.SchemaName() != "escalation" || TaskTransfer.SchemaName() != "task_transfer" {
		t.Error("Valid or SchemaName")
	}
	ps := Priorities()
	for i := 1; i < len(ps); i++ {
		if ps[i-1].Rank() >= ps[i].Rank() {
			t.Errorf("%s ranks %d, not below %s's %d", ps[i-1], ps[i-1].Rank(), ps[i], ps[i].Rank())
		}
	}
	if Priority("URGENT").Valid() || Priority("URGENT").Rank() != 0 || !Low.Valid() || Low.Rank() <= 0 {
		t.Error("an unknown priority ranks, or LOW does not")
	}
}
