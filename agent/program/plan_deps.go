package program

import (
	"slices"
	"text/template/parse"

	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/plan"
)

// stepDeps lists the steps a step reads: through references in its kind's
// values and inputs, and through .steps.X / .dependencies.X in its
// templates. A step that reads another's result waits for it.
func stepDeps(kind stepkind.Step, with map[string]*tmpl.Value) []string {
	var ids []string
	addTmpl := func(t *tmpl.Template) {
		if t != nil {
			ids = append(ids, templateStepIDs(t)...)
		}
	}
	var addValue func(v *tmpl.Value)
	addValue = func(v *tmpl.Value) {
		if v == nil {
			return
		}
		if v.Ref != nil {
			ids = append(ids, v.Ref.StepIDs()...)
		}
		addTmpl(v.Tmpl)
		for _, it := range v.Items {
			addValue(it)
		}
	}
	if r, ok := kind.(stepkind.Reader); ok {
		values, templates := r.Reads()
		for _, v := range values {
			addValue(v)
		}
		for _, t := range templates {
			addTmpl(t)
		}
	}
	for _, v := range with {
		addValue(v)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// templateStepIDs finds the step ids a template reads as .steps.X,
// .dependencies.X or $.steps.X.
func templateStepIDs(t *tmpl.Template) []string {
	var ids []string
	chain := func(idents []string) {
		if len(idents) >= 2 && (idents[0] == plan.RootSteps || idents[0] == plan.RootDependencies) {
			ids = append(ids, idents[1])
		}
	}
	tmpl.EachNode(t, func(n parse.Node) {
		switch n := n.(type) {
		case *parse.FieldNode:
			chain(n.Ident)
		case *parse.VariableNode:
			if len(n.Ident) > 0 && n.Ident[0] == "$" {
				chain(n.Ident[1:])
			}
		}
	})
	return ids
}
