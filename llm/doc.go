// Package llm is the client of the upstream model platform: it builds the
// chat completion request, applies the header policy, relays the streamed
// chunks as they arrive and turns upstream failures into typed errors.
package llm
