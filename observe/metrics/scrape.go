package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// QueueStat is what the hand-off queue holds in one status: how many
// messages, and when the oldest of them was queued.
type QueueStat struct {
	Status string
	Count  int64
	// Oldest is the queuing time of the oldest message; zero when none.
	Oldest time.Time
}

// Descriptions of the metrics read at scrape time.
var (
	queueDepthDesc = prometheus.NewDesc("agentgw_handoff_queue_messages",
		"Hand-off messages not final in the queue (all replicas), by status (QUEUED, RUNNING).", []string{"status"}, nil)
	queueAgeDesc = prometheus.NewDesc("agentgw_handoff_queue_oldest_seconds",
		"Age of the oldest hand-off message in the queue (all replicas) by status, since it was queued; 0 when none.", []string{"status"}, nil)
	pausedDesc = prometheus.NewDesc("agentgw_paused_runs",
		"Runs paused in the store (all replicas) waiting for the user: a consent or a frontend tool's result.", nil, nil)
)

// WatchQueue adds the hand-off queue's depth and the age of its oldest
// message to the metrics, read with stats at each scrape (stats reads the
// queue's table: the numbers are those of every replica).
func (m *Metrics) WatchQueue(stats func(ctx context.Context) ([]QueueStat, error)) error {
	return m.watch("hand-off queue", []*prometheus.Desc{queueDepthDesc, queueAgeDesc}, func(ctx context.Context, ch chan<- prometheus.Metric) error {
		list, err := stats(ctx)
		if err != nil {
			return err
		}
		now := m.now()
		for _, s := range list {
			status := m.label("status", s.Status)
			age := 0.0
			if !s.Oldest.IsZero() {
				age = max(now.Sub(s.Oldest).Seconds(), 0)
			}
			ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(s.Count), status)
			ch <- prometheus.MustNewConstMetric(queueAgeDesc, prometheus.GaugeValue, age, status)
		}
		return nil
	})
}

// WatchPausedRuns adds agentgw_paused_runs to the metrics, counted with
// count at each scrape (count reads the store: the number is that of every
// replica, which a process's own pauses and resumes could not give, since
// a run paused on one replica may resume on another).
func (m *Metrics) WatchPausedRuns(count func(ctx context.Context) (int64, error)) error {
	return m.watch("paused runs", []*prometheus.Desc{pausedDesc}, func(ctx context.Context, ch chan<- prometheus.Metric) error {
		n, err := count(ctx)
		if err != nil {
			return err
		}
		ch <- prometheus.MustNewConstMetric(pausedDesc, prometheus.GaugeValue, float64(n))
		return nil
	})
}

// watch registers a collector that reads with read at each scrape.
func (m *Metrics) watch(what string, descs []*prometheus.Desc, read func(context.Context, chan<- prometheus.Metric) error) error {
	if err := m.reg.Register(&scraped{m: m, what: what, descs: descs, read: read}); err != nil {
		return fmt.Errorf("metrics: registering the %s: %w", what, err)
	}
	return nil
}

// scraped is a collector whose values are read at each scrape, from the
// database. A failed read is logged and counted in
// agentgw_store_errors_total{source="scrape"}; the scrape goes on without
// those values.
type scraped struct {
	m     *Metrics
	what  string
	descs []*prometheus.Desc
	read  func(context.Context, chan<- prometheus.Metric) error
}

// Describe implements prometheus.Collector.
func (s *scraped) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range s.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *scraped) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), s.m.scrapeTimeout)
	defer cancel()
	if err := s.read(ctx, ch); err != nil {
		s.m.scrapeCountErr.Inc()
		s.m.log.Warn("metrics: reading the "+s.what+" failed", "err", err)
	}
}
