// Package tmpl is what templates in agent definitions mean: parsing with
// the restricted function set, the helpers (funcs.go), the work and size
// budget every render spends (budget.go), the fast path that renders the
// common subset without reflection (fasttemplate.go), and value templates,
// YAML values of free shape whose strings are templates or references
// (valuetemplate.go).
package tmpl
