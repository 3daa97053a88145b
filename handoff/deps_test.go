package handoff

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the message knows nothing of delivery, agents or HTTP: of the
// project it imports the leaf packages, of the world the JSON Schema
// library (with the text package it prints through) and uuid.
func TestDeps(t *testing.T) {
	deptest.Check(t, deptest.Module+"/handoff", append([]string{
		"github.com/santhosh-tekuri/jsonschema/v6/...",
		"golang.org/x/text/...",
		"github.com/google/uuid",
	}, deptest.Leaf...)...)
}
