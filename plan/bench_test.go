package plan

import (
	"context"
	"fmt"
	"testing"
)

// trivial is an Exec that returns at once.
func trivial(ctx context.Context, step int, in Invocation) (any, error) { return step, nil }

// benchPlan builds a plan from nodes.
func benchPlan(b *testing.B, nodes []Node) *Plan {
	p, errs := NewPlan(nodes)
	if errs != nil {
		b.Fatal(errs)
	}
	return p
}

func BenchmarkRunLinear10(b *testing.B) {
	var nodes []Node
	for i := 0; i < 10; i++ {
		n := Node{ID: fmt.Sprintf("s%d", i), Output: mustOut(b, fmt.Sprintf("state.s%d", i))}
		if i > 0 {
			n.Refs = map[string]*Ref{"prev": mustRef(b, fmt.Sprintf("$steps.s%d.result", i-1))}
		}
		nodes = append(nodes, n)
	}
	p := benchPlan(b, nodes)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Run(context.Background(), trivial, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunFanOut10(b *testing.B) {
	nodes := []Node{{ID: "root"}}
	var deps []string
	for i := 0; i < 10; i++ {
		id := fmt.Sprintf("s%d", i)
		nodes = append(nodes, Node{ID: id, DependsOn: []string{"root"}, When: mustCond(b, "dependencies.root.status == 'COMPLETED'")})
		deps = append(deps, id)
	}
	nodes = append(nodes, Node{ID: "join", DependsOn: deps})
	p := benchPlan(b, nodes)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Run(context.Background(), trivial, Options{Parallel: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConditionEval(b *testing.B) {
	c := mustCond(b, "dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8")
	sc := seedScope()
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := c.Eval(sc); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkRefResolve(b *testing.B) {
	r := mustRef(b, "$state.missing || $dependencies.inst_1.result.score")
	sc := seedScope()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := r.Resolve(sc); !ok {
			b.Fatal("absent")
		}
	}
}
