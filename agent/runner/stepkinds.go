package runner

import (
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
)

// captureSink relays chunks to the step's emitter and keeps their text.
type captureSink struct {
	em   emit.Emitter
	text strings.Builder
}

func (s *captureSink) Chunk(raw []byte) error {
	s.text.WriteString(llm.ChunkText(raw))
	return s.em.Chunk(raw)
}

// teeEmitter writes through and records.
type teeEmitter struct {
	emit.Emitter
	rec *emit.Recorder
}

func (t *teeEmitter) Text(s string) error {
	_ = t.rec.Text(s)
	return t.Emitter.Text(s)
}

func (t *teeEmitter) Chunk(raw []byte) error {
	_ = t.rec.Chunk(raw)
	return t.Emitter.Chunk(raw)
}

// notConfigured is the error of a model step without an upstream.
func notConfigured(command string) *apierr.Error {
	return apierr.New(apierr.CodeUpstreamNotConfigured, fmt.Sprintf("command %q asks a model, but this gateway has no upstream model platform configured", command)).
		Suggest("start the gateway with --upstream URL (or AGENTGW_UPSTREAM_URL, or upstream.url in the config file), " +
			"e.g. --upstream https://api.openai.com/v1 with upstream.auth key and OPENAI_API_KEY")
}
