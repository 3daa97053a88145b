// Package program compiles agent definitions into the programs the runner
// runs: agents whose commands have their templates, prompts, actions,
// plans and tools compiled and checked (Load, Parse, with LoadOptions),
// the registry that holds them with atomic swap, the step kinds the
// gateway brings (reply, llm, action, set, call; NewKinds), the definition
// parts features register (Part: hand-off acceptance, for one), and the
// request-carried definitions a gateway may accept (DefinitionCache).
//
// It knows the definition language, not how a request runs: the built-in
// step kinds run through stepkind.Run and Host, which agent/runner
// implements, as any other step kind could.
package program
