// Package toolload compiles the tools agent definitions and the gateway's
// shared tool files define, with a tools.Manager: LoadTools reads the
// shared tool files, and Compiler is the tool compiler loading agents uses
// (program.LoadOptions.Tools). It sits between package tools, which knows
// no agent definition, and the runner, which knows no tool runtime, so
// that neither imports the other.
package toolload
