package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/keys"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/schedule"
	"github.com/agentgw/agentgw/schedule/agentrun"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// Sources of the schedules defined in files (schedule.Store.Sync).
const (
	sourceConfig = "config"
	sourceAgents = "agents"
)

// schedules are the gateway's schedules: their store, the scheduler that
// runs them, and the API over both.
type schedules struct {
	store *schedule.Store
	sched *schedule.Scheduler
	api   *agentrun.API
	log   *slog.Logger
}

// newSchedules opens the schedules in the store's database, syncs the
// config's, and starts the scheduler; nil for the memory store (no
// schedules). stop stops the scheduler, letting runs in progress finish.
// budget, when not nil, holds the runs to their creators' budgets;
// onFinish, when not nil, is told each run's outcome (the metrics); keyOK
// checks the key a schedule was made with before each of its runs (nil:
// the gateway reads no keys).
func newSchedules(ctx context.Context, st store.Store, cfg *Config, r *runner.Runner, sender handoffstep.Sender, budget observe.Budget,
	onFinish func(schedule.Schedule, schedule.Run), keyOK agentrun.KeyCheck, log *slog.Logger) (*schedules, func(), error) {
	var s *schedule.Store
	var err error
	switch db := st.(type) {
	case *sqlitestore.SQLite:
		s, err = schedule.NewSQLite(ctx, db.DB(), schedule.Options{Logger: log})
	case *pgstore.Postgres:
		s, err = schedule.NewPostgres(ctx, db.Pool(), schedule.Options{Logger: log})
	default:
		if len(cfg.Schedules) > 0 {
			log.Warn("schedules: off (the memory store keeps none); the config's are not run", "schedules", len(cfg.Schedules))
		}
		return nil, func() {}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("schedules: %w", err)
	}
	runs := &agentrun.Runs{Runner: r, Handoffs: sender, WebhookAllow: cfg.Scheduler.WebhookAllow, Log: log, Budget: budget, Keys: keyOK}
	sched, err := schedule.New(s, schedule.Config{Runner: runs.Run, Tick: time.Duration(cfg.Scheduler.Tick),
		DefaultTimeout: time.Duration(cfg.Scheduler.DefaultTimeout), Heartbeat: time.Duration(cfg.Scheduler.Heartbeat),
		OnFinish: onFinish, Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("schedules: %w", err)
	}
	out := &schedules{store: s, sched: sched, log: log,
		api: &agentrun.API{Store: s, Scheduler: sched, WebhookAllow: cfg.Scheduler.WebhookAllow, Registry: r.Registry(),
			Limits: agentrun.Limits{MaxPerOwner: cfg.Scheduler.MaxPerOwner, MinInterval: time.Duration(cfg.Scheduler.MinInterval)}}}
	var defs []schedule.Schedule
	for _, d := range cfg.Schedules {
		if sc, err := agentrun.FromDef(d, ""); err == nil { // validate checked them
			defs = append(defs, sc)
		}
	}
	if err := out.sync(ctx, sourceConfig, defs); err != nil {
		return nil, nil, err
	}
	if err := sched.Start(ctx); err != nil {
		return nil, nil, fmt.Errorf("starting the scheduler: %w", err)
	}
	return out, func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sched.Stop(stopCtx); err != nil {
			log.Warn("stopping the scheduler", "err", err)
		}
	}, nil
}

// keyCheck is the check of a schedule's or a hand-off's key on ks
// (keys.Store.LookupID); nil when ks is (server.keys off).
func keyCheck(ks *keys.Store) func(ctx context.Context, id string) (bool, error) {
	if ks == nil {
		return nil
	}
	return func(ctx context.Context, id string) (bool, error) {
		_, live, err := ks.LookupID(ctx, id)
		return live, err
	}
}

// sync makes source's schedules defs, and logs what changed.
func (s *schedules) sync(ctx context.Context, source string, defs []schedule.Schedule) error {
	rep, err := s.store.Sync(ctx, source, defs)
	if err != nil {
		return fmt.Errorf("schedules of the %s: %w", source, err)
	}
	if len(rep.Created)+len(rep.Updated)+len(rep.Deleted) > 0 {
		s.log.Info("schedules synced", "source", source, "created", rep.Created, "updated", rep.Updated, "deleted", rep.Deleted)
	}
	return nil
}

// syncAgents makes the agent files' schedules those of set; a problem is
// logged (lint and GET /agents show the definitions' own problems).
func (s *schedules) syncAgents(ctx context.Context, set agentSet) {
	if s == nil {
		return
	}
	defs, _ := agentSchedules(set.agents)
	if err := s.sync(ctx, sourceAgents, defs); err != nil {
		s.log.Error("schedules of the agent files not synced", "err", err)
	}
}

// agentSchedules are the schedules the agents' files define, and the
// problems of those that cannot be (with their positions).
func agentSchedules(agents []*program.Agent) ([]schedule.Schedule, agent.Diagnostics) {
	var out []schedule.Schedule
	var diags agent.Diagnostics
	seen := map[string]agent.Position{}
	for _, a := range agents {
		for _, d := range a.Def.Schedules {
			if d == nil {
				continue
			}
			sc, err := agentrun.FromDef(d, a.Name())
			if err != nil {
				diags.Add(agent.SeverityError, d.Pos, fmt.Sprintf("schedule %q: %v", d.Name, err))
				continue
			}
			if prev, dup := seen[d.Name]; dup {
				diags.Add(agent.SeverityError, d.Pos, fmt.Sprintf("schedule %q is defined twice (also at %s)", d.Name, prev))
				continue
			}
			seen[d.Name] = d.Pos
			out = append(out, sc)
		}
	}
	return out, diags
}
