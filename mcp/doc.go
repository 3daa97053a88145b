// Package mcp speaks the Model Context Protocol for agentgw, on top of the
// official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// The client side ([Dial], [Client], [Pool]) calls tools that live on MCP
// servers, reached either by running a command and talking to it over stdio or
// over streamable HTTP. The server side ([NewHandler]) is the gateway's own
// /mcp endpoint, which offers the tools an operator exports to MCP-capable
// IDEs.
package mcp
