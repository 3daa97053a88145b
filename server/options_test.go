package server_test

import (
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/server"
)

// option changes the setup of a test gateway before it starts.
type option func(*setup)

func withServer(f func(*server.Config)) option { return func(s *setup) { f(&s.srv) } }

func withRunner(f func(*runner.RunnerConfig)) option { return func(s *setup) { f(&s.run) } }

func withLLM(f func(*llm.Config)) option { return func(s *setup) { f(&s.llm) } }

// withUpstream starts a fake upstream that answers every request with r.
func withUpstream(r llmtest.Reply) option {
	return withModel(llmtest.Repeat(r))
}

// withModel starts a fake model platform with the options.
func withModel(opts ...llmtest.Option) option {
	return func(s *setup) { s.upstream = append(opts, s.upstream...) }
}

// withUpstreamURL points the gateway at u without starting an upstream.
func withUpstreamURL(u string) option { return func(s *setup) { s.upstreamURL = u } }

func withSigner(sg *actions.Signer) option {
	return withRunner(func(c *runner.RunnerConfig) { c.Signer = sg })
}

func withRequestDefinitions(allow bool) option {
	return withRunner(func(c *runner.RunnerConfig) { c.AllowRequestDefinitions = allow })
}

func withTimeouts(first, idle time.Duration) option {
	return withLLM(func(c *llm.Config) { c.FirstByteTimeout, c.IdleTimeout = first, idle })
}

func withTerminator(term string) option {
	return withServer(func(c *server.Config) { c.Terminator = term })
}

func withKeepAlive(every time.Duration) option {
	return withServer(func(c *server.Config) { c.KeepAlive = every })
}

func withAuthTokens(tokens ...string) option {
	return withServer(func(c *server.Config) { c.AuthTokens = tokens })
}

func withBodyLimit(n int64) option { return withServer(func(c *server.Config) { c.BodyLimit = n }) }

func withPublicURL(u string) option { return withServer(func(c *server.Config) { c.PublicURL = u }) }

func withRateLimit(perSecond float64, burst int) option {
	return withServer(func(c *server.Config) { c.RateLimit, c.RateBurst = perSecond, burst })
}
