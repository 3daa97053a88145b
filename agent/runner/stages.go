package runner

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
)

// runStages runs the request stages (package stage) in order, after the
// conversation is bound and the context applied, before the model is
// picked and the prompt built. Their errors are for before the stream.
func (r *Runner) runStages(run *Run) error {
	for _, s := range r.stages {
		if err := s.Prepare(bgctx(), stageView{run}); err != nil {
			var e *apierr.Error
			if errors.As(err, &e) {
				return e
			}
			run.logger().Error("request stage failed", "stage", s.Name(), "err", err)
			return apierr.Internal(fmt.Errorf("request stage %s: %w", s.Name(), err))
		}
	}
	return nil
}

// stageView is a run being prepared as the stages see it.
type stageView struct{ run *Run }

var _ stage.Prepared = stageView{}

// Agent implements stage.Prepared.
func (v stageView) Agent() string { return v.run.Agent() }

// Command implements stage.Prepared.
func (v stageView) Command() string { return v.run.Command() }

// Variable implements stage.Prepared.
func (v stageView) Variable(name string) (contextvars.Options, bool) {
	for _, o := range v.run.cmd.Vars {
		if o.Name == name {
			return o.Opts, true
		}
	}
	return contextvars.Options{}, false
}

// Context implements stage.Prepared.
func (v stageView) Context() *contextvars.Set { return v.run.req.Context }

// Logger implements stage.Prepared.
func (v stageView) Logger() *slog.Logger { return v.run.logger() }
