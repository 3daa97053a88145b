// Package tools compiles and runs the tools agents may call: scripts run by
// an interpreter over stdio (python, javascript), native binaries, WASI
// modules run in-process with wazero, HTTP endpoints, builtin Go functions
// and frontend tools that the IDE runs itself. Other runtimes (mcp) plug in
// with Manager.Register.
//
// A Manager holds the runtimes and the gateway-wide limits (Config). Compile
// turns an operator's Spec into a Tool: the parameters' JSON Schema compiled,
// the working directory resolved and confined, the interpreter looked up, a
// wasm module compiled. Tool.Call validates the parameters, applies the
// tool's timeout and output cap, runs it and shapes a Result with the
// protocol's statuses and error codes. Tool.Close releases what a tool
// holds between calls (a wasm runtime) once its calls in flight end.
//
// Tool.Call is the one path every caller takes (a model's tool call, a plan
// step, a schedule, an MCP client of the gateway's export), and it reads
// the schema as closed: a parameter name the schema does not declare is
// INVALID_PARAMETERS before any runtime sees the call, unless the author
// opened the schema explicitly (additionalProperties other than false,
// patternProperties, unevaluatedProperties other than false); a native
// tool's schema can never be open.
//
// What a tool sees:
//
//   - python, javascript: `<interpreter> <entry> <args...>` with
//     {"command": ..., "parameters": {...}} on stdin; stdout is one JSON
//     value (else its trimmed text) and is the result.
//   - native: `<entry> <args...> <command> --key=value ...`, never through a
//     shell; only declared keys (flag-safe names), sorted, each flag and its
//     value one argv entry so no value becomes a flag; arrays repeat the
//     flag, objects are JSON text; stdout (trimmed) is the result, cut at
//     the cap with a marker.
//   - wasm: a WASI command with args [name, args...], the stdio message on
//     stdin, no file system but the read-only mounts.
//   - http: the parameters POSTed as JSON to the entry, which must lie under
//     Config.HTTPAllow as internal/urlallow reads it (redirects too); the
//     body is the result.
//
// A workdir and the mounts are resolved inside the allowed roots at load
// and opened through their root again at each call, never used by path:
// a process starts in the opened directory (by descriptor on Linux), a
// module reads a mount through an os.Root of it. What was swapped in since
// the load cannot lead out of the roots.
//
// Processes run in their own process group with only the environment
// variables the tool lists, in the resolved workdir; the whole group is
// killed at the deadline, on cancellation and when the process exits. A
// non-zero exit is TOOL_FAILED with the start and end of stderr.
package tools
