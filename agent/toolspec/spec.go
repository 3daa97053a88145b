// Package toolspec is a tool as an operator writes it, the shape of a
// call (its caller) and of its result (statuses, error codes,
// fallbacks), apart from the runtimes that run it (package tools), so that
// agent definitions can hold tool specs, and the runner call tools, without
// importing the runtimes.
package toolspec

import "time"

// Spec is a tool as an operator writes it: YAML inside an agent definition or
// in shared tool files.
type Spec struct {
	// Name is what the model calls: [A-Za-z0-9_-]{1,64}.
	Name string `yaml:"name" json:"name"`
	// Description tells the model what the tool does.
	Description string `yaml:"description" json:"description,omitempty"`
	// Parameters is a JSON Schema for the parameters object; nil means
	// {"type":"object"} with no parameter. It is closed: a call naming a
	// parameter it does not declare is refused (INVALID_PARAMETERS) unless
	// it sets additionalProperties (not false) or patternProperties; a
	// native tool's never may, its parameters being command-line flags.
	Parameters map[string]any `yaml:"parameters" json:"parameters,omitempty"`
	// Runtime is python, javascript, native, wasm, http, mcp, builtin or frontend.
	Runtime string `yaml:"runtime" json:"runtime"`
	// Entry is the script, binary, .wasm file, URL, MCP server command line or
	// URL, or builtin name; frontend tools leave it empty.
	Entry string `yaml:"entry" json:"entry,omitempty"`
	// Command is passed to stdio, wasm and native tools; "" means Name.
	Command string `yaml:"command" json:"command,omitempty"`
	// Args are extra argv entries after the entry (native, python, javascript, wasm).
	Args []string `yaml:"args" json:"args,omitempty"`
	// Env is the environment allow-list: NAME (taken from the gateway's
	// environment) or NAME=value. Nothing else of the gateway's environment
	// reaches the tool.
	Env []string `yaml:"env" json:"env,omitempty"`
	// Workdir is relative to the tool's base directory and must stay inside
	// the manager's WorkRoots.
	Workdir string `yaml:"workdir" json:"workdir,omitempty"`
	// Timeout bounds one call; 0 means tools.DefaultTimeout.
	Timeout time.Duration `yaml:"timeout" json:"timeout,omitempty"`
	// MaxOutputBytes caps stdout or the HTTP response body; 0 means tools.DefaultMaxOutputBytes.
	MaxOutputBytes int `yaml:"maxOutputBytes" json:"maxOutputBytes,omitempty"`
	// PermissionLevel is AUTO (the default) or USER_CONSENT.
	PermissionLevel string `yaml:"permissionLevel" json:"permissionLevel,omitempty"`
	// Export offers the tool to MCP clients on the gateway's /mcp endpoint.
	Export bool `yaml:"export" json:"export,omitempty"`
	// Unattended lets a schedule made over the API (POST /schedules) call
	// the tool with no one present. Such a tool must also be exported and
	// AUTO (not USER_CONSENT), and not a frontend tool; the schedules in the
	// operator's files may call any tool.
	Unattended bool `yaml:"unattended" json:"unattended,omitempty"`
	// Remote is an mcp tool's name on its server; "" means Name.
	Remote string `yaml:"remote" json:"remote,omitempty"`
	// MemoryMiB is a wasm tool's memory limit; 0 means tools.DefaultMemoryMiB.
	MemoryMiB int `yaml:"memoryMiB" json:"memoryMiB,omitempty"`
	// Mounts are host directories granted read-only to a wasm module, each
	// "hostdir" (mounted at the same path) or "hostdir:guestdir".
	Mounts []string `yaml:"mounts" json:"mounts,omitempty"`
	// UserPrompt is what to ask the user (frontend tools and consent); the
	// caller renders any template in it.
	UserPrompt string `yaml:"userPrompt" json:"userPrompt,omitempty"`
	// FallbackBehavior is a frontend tool's ABORT, SKIP or USE_ALTERNATIVE.
	FallbackBehavior string `yaml:"fallbackBehavior" json:"fallbackBehavior,omitempty"`
}
