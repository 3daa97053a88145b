package runner

import (
	"slices"
	"text/template/parse"

	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/steps"
)

// stepDeps lists the steps a step reads: through references in its kind's
// values and inputs, and through .steps.X / .dependencies.X in its
// templates. A step that reads another's result waits for it.
func stepDeps(kind stepKind, with map[string]*tmpl.Value) []string {
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
	switch k := kind.(type) {
	case *replyKind:
		addTmpl(k.t)
	case *llmKind:
		for _, t := range k.system {
			addTmpl(t)
		}
		for _, rt := range k.others {
			addTmpl(rt.t)
		}
	case *actionKind:
		addValue(k.action.spec)
	case *setKind:
		for _, v := range k.values {
			addValue(v)
		}
	case *gitKind:
		for _, v := range []*tmpl.Value{k.repo, k.ref, k.from, k.to, k.dir} {
			addValue(v)
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
		if len(idents) >= 2 && (idents[0] == steps.RootSteps || idents[0] == steps.RootDependencies) {
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
