// Package tmpl is what templates in agent definitions mean: parsing with
// the restricted function set, the helpers (helpers.go), the work and size
// budget every render spends (budget.go), the fast path that renders the
// common subset without reflection (fast.go), and value templates,
// YAML values of free shape whose strings are templates or references
// (value.go).
package tmpl
