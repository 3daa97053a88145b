package actions

import (
	"encoding/json"
	"errors"
	"strings"
)

// ValidationError is one problem of an action, at a path into its wire
// shape such as "data.nodes[2].pId" (empty for the whole action).
type ValidationError struct {
	// Path locates the problem: members joined by dots, array indexes in
	// brackets, unusual member names quoted in brackets.
	Path string
	// Message says what is wrong.
	Message string
}

// Error returns "path: message", or the message alone for an empty path.
func (e *ValidationError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Problems returns the *ValidationError values in err, as joined by Parse
// and Validate (possibly wrapped), in order.
func Problems(err error) []*ValidationError {
	switch e := err.(type) {
	case *ValidationError:
		return []*ValidationError{e}
	case interface{ Unwrap() []error }:
		var out []*ValidationError
		for _, inner := range e.Unwrap() {
			out = append(out, Problems(inner)...)
		}
		return out
	case interface{ Unwrap() error }:
		return Problems(e.Unwrap())
	}
	return nil
}

// Validate checks the rules of docs/protocol.md §5 and returns every
// problem, as an errors.Join of *ValidationError, or nil:
//   - the kind is known and its data, only its data, is set; a state marked
//     StateIsJSON is JSON;
//   - confirm: the title is not blank;
//   - tree: treeId is not empty; node ids are not empty and unique, and
//     none is rootPId; every pId is rootPId or another node's id, and no
//     chain of parents loops; no Extra key repeats a standard node field or
//     reads as its misspelling (such as "lable", "Name", "pid"), and every
//     Extra value can be written as JSON;
//   - every nodeAction's nodeType occurs among the nodes' types, nodeAction
//     is "expand" or "click", at most one of command, prompt and
//     promptByNodeProperty is set, no two nodeActions share a nodeType and
//     nodeAction, and promptByNodeProperty names a text property that every
//     node of that type has (id, pId, type, name, description or an Extra
//     key).
func (a *Action) Validate() error {
	if a == nil {
		return errors.Join(&ValidationError{Message: "no action"})
	}
	var w walker
	if a.StateIsJSON && a.State != "" && !json.Valid([]byte(a.State)) {
		w.problem("state", "marked as JSON but is not valid JSON")
	}
	switch a.Kind {
	case KindConfirm:
		if a.Tree != nil {
			w.problem("data", "a confirm action carries tree data")
		}
		if a.Confirm == nil {
			w.problem("data", "missing: a confirm action needs its Confirm data")
		} else {
			w.validateConfirm(a.Confirm)
		}
	case KindTree:
		if a.Confirm != nil {
			w.problem("data", "a tree action carries confirm data")
		}
		if a.Tree == nil {
			w.problem("data", "missing: a tree action needs its Tree data")
		} else {
			w.validateTree(a.Tree)
		}
	case "":
		w.problem("action", "missing; want %q or %q", KindConfirm, KindTree)
	default:
		w.problem("action", "unknown action %q%s", a.Kind, didYouMean(a.Kind, kinds))
	}
	return w.err()
}

func (w *walker) validateConfirm(c *Confirm) {
	if strings.TrimSpace(c.Title) == "" {
		w.problem("data.title", "must not be blank: it is the button text")
	}
}

func (w *walker) validateTree(t *Tree) {
	if t.TreeID == "" {
		w.problem("data.treeId", "must not be empty")
	}
	ids := w.nodeIDs(t)
	w.parents(t, ids)
	w.cycles(t, ids)
	w.extras(t)
	w.nodeActions(t)
}
