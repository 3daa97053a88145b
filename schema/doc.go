// Package schema generates JSON Schemas (draft 2020-12) for editors from
// the Go types that load the files they describe: an agent definition from
// package agent's types and the step kinds' and tool runtimes' own specs,
// an agent test file from package agenttest's types,
// the gateway configuration from its type and the comments and values of
// its embedded default file. The schemas are made from what loads the
// files, so they cannot drift from it.
package schema
