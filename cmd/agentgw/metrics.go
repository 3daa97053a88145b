package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/observe/metrics"
	"github.com/agentgw/agentgw/schedule"
	"github.com/agentgw/agentgw/store"
)

// MetricsConfig is the Prometheus metrics.
type MetricsConfig struct {
	// Enabled serves GET /metrics: on debugAddr when it is set, else on
	// the main listener behind the inbound auth.
	Enabled bool `yaml:"enabled"`
}

// newMetrics builds the gateway's metrics, nil when they are off. The
// paused runs are counted in st at each scrape when st can count.
func newMetrics(cfg *Config, st store.Store, log *slog.Logger) *metrics.Metrics {
	if !cfg.Metrics.Enabled {
		return nil
	}
	m := metrics.New(metrics.Options{Logger: log})
	if c, ok := st.(store.Counter); ok {
		if err := m.WatchPausedRuns(func(ctx context.Context) (int64, error) { return runstate.CountPaused(ctx, c) }); err != nil {
			log.Warn("metrics: paused runs not counted", "err", err)
		}
	}
	where := "/metrics on the main listener"
	if cfg.DebugAddr != "" {
		where = "/metrics on the debug listener " + cfg.DebugAddr
	}
	log.Info("metrics: " + where)
	return m
}

// watchQueue adds the hand-off queue's depth and age to m; either may be
// nil.
func watchQueue(m *metrics.Metrics, q *queue.Queue, log *slog.Logger) {
	if m == nil || q == nil {
		return
	}
	err := m.WatchQueue(func(ctx context.Context) ([]metrics.QueueStat, error) {
		stats, err := q.Stats(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]metrics.QueueStat, len(stats))
		for i, s := range stats {
			out[i] = metrics.QueueStat{Status: string(s.Status), Count: s.Count, Oldest: s.Oldest}
		}
		return out, nil
	})
	if err != nil {
		log.Warn("metrics: hand-off queue not watched", "err", err)
	}
}

// scheduleRuns is the schedulers' OnFinish that counts runs in m, nil
// without metrics.
func scheduleRuns(m *metrics.Metrics) func(schedule.Schedule, schedule.Run) {
	if m == nil {
		return nil
	}
	return func(_ schedule.Schedule, run schedule.Run) { m.ScheduleRun(string(run.Status)) }
}

// metricsHandlers are where GET /metrics is served: on the debug listener
// when there is one, else on the main listener; both nil without metrics.
func metricsHandlers(cfg *Config, m *metrics.Metrics) (main, debug http.Handler) {
	if m == nil {
		return nil, nil
	}
	if cfg.DebugAddr != "" {
		return nil, m.Handler()
	}
	return m.Handler(), nil
}
