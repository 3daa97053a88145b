// Package agenttest runs agent definitions' tests offline, the way
// `benthos test` runs a pipeline's: files named *_test.yaml next to the
// agents give requests (a command, context variables, messages and clicks on
// the actions the answers emitted), recorded model answers, stubs for tools
// and plan steps, and expectations on what the gateway answers and on what
// it sent the model.
//
// A test runs the real runner in this process with no network: the recorded
// answers are served to the runner's llm client by an http.RoundTripper
// that replays them as an OpenAI stream (or a completion), so the exact
// request body the gateway would send upstream is checked; tool runtimes and
// the gateway's own step kinds (git, tool, handoff, ask, recall) are
// replaced by stubs the test names. Agents are loaded by a Loader the
// caller gives (cmd/agentgw loads them as serve does), once as the gateway
// would (its problems fail the file) and once with the stubs in place.
//
// Every failed expectation is reported at the file and line of the YAML that
// states it.
package agenttest
