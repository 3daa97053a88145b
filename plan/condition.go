package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// Condition is a compiled `when` expression (the seed's `condition`, section 6.2), evaluated with
// expr-lang. It accepts:
//
//   - logic: AND OR NOT, and or not, && || !
//   - comparisons: == != > < >= <=, and expr's other operators (in, matches, arithmetic, ...)
//   - dotted paths rooted at state, steps, dependencies, context, input (steps.fetch-user.status and
//     state.items.0 included), and expr's indexing (state.items[0], steps["fetch-user"])
//   - literals: 'single' or "double" quoted strings, numbers, true, false, null (or nil)
//   - functions: contains(haystack, needle) — substring of a string, element of a list (numbers compare
//     by value), key of a map — and isEmpty(x) — nil, a blank string, an empty list or map; plus expr's
//     builtins (len, lower, ...)
//
// Member access never fails: a missing key, an index out of range or a member of a non-container is
// nil, so `state.user.name == 'ann'` is false while state.user does not exist, and a bare missing path
// is false. Operations that are still errors at run time (nil > 0.8, say) make Eval return false and the
// error.
type Condition struct {
	src     string
	program *vm.Program
	ids     []string
}

// fetchFunc is the nil-safe member access every a.b and a[b] is rewritten to.
const fetchFunc = "_fetch"

// compileEnv declares the roots, so that any other free name is a compile error.
var compileEnv = map[string]any{
	RootState: map[string]any{}, RootSteps: map[string]any{}, RootDependencies: map[string]any{},
	RootContext: map[string]any{}, RootInput: map[string]any{}, RootHandoff: map[string]any{},
}

// CompileCondition compiles a condition (see Condition). Errors name the position expr reports.
func CompileCondition(src string) (c *Condition, err error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return nil, errors.New("empty condition")
	}
	defer func() { // expr is third-party code; a panic in it must not take the gateway down
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("compiling condition %q: %v", src, r)
		}
	}()
	v := &nilSafe{}
	program, err := expr.Compile(rewrite(src),
		expr.Env(compileEnv),
		expr.AsBool(),
		expr.Patch(v),
		expr.Function(fetchFunc, fetchFn, new(func(any, any) any)),
		expr.Function("_contains", containsFn, new(func(any, any) bool)),
		expr.Function("isEmpty", isEmptyFn, new(func(any) bool)),
	)
	if err != nil {
		return nil, fmt.Errorf("compiling condition %q: %w", src, err)
	}
	return &Condition{src: src, program: program, ids: v.ids}, nil
}

// Eval evaluates the condition against sc. Any evaluation error (or a result that is not a bool) makes
// it false and is returned so the caller can record it; a nil result (a bare missing path) is false
// without an error.
func (c *Condition) Eval(sc *Scope) (bool, error) {
	env := map[string]any{
		RootState: sc.root(RootState), RootSteps: sc.root(RootSteps), RootDependencies: sc.root(RootSteps),
		RootContext: sc.root(RootContext), RootInput: sc.root(RootInput), RootHandoff: sc.root(RootHandoff),
	}
	out, err := expr.Run(c.program, env)
	if err != nil {
		return false, fmt.Errorf("evaluating condition %q: %w", c.src, err)
	}
	switch b := out.(type) {
	case bool:
		return b, nil
	case nil:
		return false, nil
	}
	return false, fmt.Errorf("evaluating condition %q: the result is a %T, not a bool", c.src, out)
}

// StepIDs returns the step ids the expression names under steps. or dependencies. (steps.x,
// steps["x"]), in order of appearance, without repeats. Ids computed at run time are not seen.
func (c *Condition) StepIDs() []string { return slices.Clone(c.ids) }

// String returns the condition as written (trimmed).
func (c *Condition) String() string { return c.src }

// nilSafe is an expr patcher: it rewrites every member access a.b / a[b] to _fetch(a, b) and notes the
// step ids named right under steps and dependencies. ast.Walk visits children first, so the innermost
// access (steps.x) is seen while its base is still the root identifier.
type nilSafe struct{ ids []string }

// Visit implements ast.Visitor.
func (v *nilSafe) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok || m.Method {
		return
	}
	if root, ok := m.Node.(*ast.IdentifierNode); ok && (root.Value == RootSteps || root.Value == RootDependencies) {
		if id, ok := constKey(m.Property); ok && !slices.Contains(v.ids, id) {
			v.ids = append(v.ids, id)
		}
	}
	ast.Patch(node, &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: fetchFunc},
		Arguments: []ast.Node{m.Node, m.Property},
	})
}

// constKey returns the key of a literal member property.
func constKey(n ast.Node) (string, bool) {
	switch p := n.(type) {
	case *ast.StringNode:
		return p.Value, true
	case *ast.IntegerNode:
		return strconv.Itoa(p.Value), true
	}
	return "", false
}
