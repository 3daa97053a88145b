// Package plan is the plan engine for multi-step agent commands.
//
// A command may be a plan: steps with an id, dependencies, a condition, one kind (reply, llm, action,
// set, call, git, ...), inputs, an output path, a timeout, retries and an onError policy. The agent
// package parses the YAML and executes the kinds; this package provides everything else:
//
//   - Path: dotted paths rooted at state, steps (alias dependencies), context and input.
//   - Ref: reference expressions used as input values, "$state.a || $state.b" (fallback) and
//     "$state.a && $state.b" (gate), with the seed's "†" prefix and "${path}" form.
//   - Output: output path expressions, "state.ok || state.failed" (branch) and "state.a && state.b"
//     (fan-out).
//   - State: the plan's state, a concurrent copy-on-write tree of maps.
//   - Condition: `when` expressions in the seed's syntax (AND/OR/NOT, comparisons, dotted paths,
//     contains(), isEmpty()) compiled once with expr-lang; missing paths read as nil.
//   - Plan: validation (ids, dependencies with "did you mean", references to unknown steps, cycles named
//     "a -> b -> a") and Run, the DAG scheduler: independent steps in parallel (bounded), statuses
//     PENDING, RUNNING, COMPLETED, FAILED, SKIPPED, TIMEOUT, per-step timeouts and retries with
//     exponential backoff, onError fail|continue, held steps (ErrHold: the step and its dependents end
//     SKIPPED, the rest runs, and the caller runs the plan again later), a plan timeout, and no goroutine left behind.
//
// The semantics follow the seed protocol's instructions (section 5: statuses; section 6: dependencies,
// condition expressions, cycle detection, "${dependencies.inst_1.result.data}") and its expressions
// document (reference expressions with || and &&, output paths with || and &&). Step records are read
// as steps.<id>.status (a status name), .result, .error.message and .attempts, so a condition such as
//
//	dependencies.inst_1.status == 'COMPLETED' AND dependencies.inst_1.result.score > 0.8
//
// works as in the seed. The package imports no other agentgw package.
package plan
