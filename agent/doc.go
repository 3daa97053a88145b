// Package agent holds agent definitions as an admin writes them: the YAML
// model, the decoder that keeps file positions, the diagnostics lint prints,
// the export to the IDE platform's JSON shape, and the one error type that
// reaches a client. It imports nothing of the runtime (no model client, store,
// tools or repositories): compiling and running a definition is package
// runner's job, template meaning package tmpl's.
package agent
