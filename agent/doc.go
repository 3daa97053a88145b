// Package agent holds agent definitions as an admin writes them: the YAML
// model, the decoder that keeps file positions (DecodeFile, NodeDecoder), the
// specs of step kinds that tell the decoder a step's kind keys (KindSpec),
// the diagnostics lint prints and the export to the IDE platform's JSON
// shape. The error type that reaches a client lives in package apierr. It
// imports nothing of the runtime (no model client, store, tools or
// repositories): compiling and running a definition is package runner's job,
// template meaning package tmpl's, plugging in step kinds package stepkind's.
package agent
