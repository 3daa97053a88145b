// Package ui is the playground: a small web page, embedded in the binary,
// where a person picks an agent and command, fills context variables, sends
// and watches the answer stream in. The page is a client of the gateway
// like an IDE plugin: it talks to it only over its HTTP API (GET /agents,
// GET /agents/{name}, POST /agents/{name}), with the token the user enters.
// This package serves the page's files and nothing else.
package ui
