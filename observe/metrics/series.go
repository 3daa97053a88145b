package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// series caches the series of metrics by their label values, so that a
// request reaches each of its series with one map lookup rather than
// prometheus's WithLabelValues, which checks and hashes every value byte
// by byte at each call (issue 29: the observer's cost per request). The
// keys are label values already bounded (Metrics.label), so a cache holds
// no more entries than the metrics have series.
type series[K comparable, V any] struct {
	mu   sync.RWMutex
	m    map[K]V
	make func(K) V
}

func newSeries[K comparable, V any](make func(K) V) *series[K, V] {
	return &series[K, V]{m: map[K]V{}, make: make}
}

// get is the series of k, made on first use.
func (s *series[K, V]) get(k K) V {
	s.mu.RLock()
	v, ok := s.m[k]
	s.mu.RUnlock()
	if ok {
		return v
	}
	v = s.make(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[k]; ok {
		return old
	}
	s.m[k] = v
	return v
}

// requestKey is the labels of agentgw_requests_total.
type requestKey struct{ source, route, agent, command, outcome, code string }

// upstreamKey is the labels of agentgw_upstream_requests_total, the
// status as the upstream's number: its label value is made (and bounded)
// once, when the series is.
type upstreamKey struct {
	model  string
	status int
	code   string
}

// modelSeries is the series of one model's calls that every call
// reaches (its first byte's only some: Metrics.upFirstByteSeries).
type modelSeries struct {
	retries  prometheus.Counter
	duration prometheus.Observer
}

// tokensKey is the labels of agentgw_tokens_total but the type.
type tokensKey struct {
	model, agent string
	estimated    bool
}

// tokensSeries is the input and output series of agentgw_tokens_total.
type tokensSeries struct{ in, out prometheus.Counter }

// cache makes m's caches of the series a request reaches. A series is
// made when first reached, as WithLabelValues made it: the scrape shows
// the same series as before the caches.
func (m *Metrics) cache() {
	m.requestSeries = newSeries(func(k requestKey) prometheus.Counter {
		return m.requests.WithLabelValues(k.source, k.route, k.agent, k.command, k.outcome, k.code)
	})
	m.firstByteSeries = newSeries(func(k [2]string) prometheus.Observer { return m.firstByte.WithLabelValues(k[0], k[1]) })
	m.durationSeries = newSeries(func(k [2]string) prometheus.Observer { return m.duration.WithLabelValues(k[0], k[1]) })
	m.openSeries = newSeries(func(agent string) prometheus.Gauge { return m.openStreams.WithLabelValues(agent) })
	m.upstreamSeries = newSeries(func(k upstreamKey) prometheus.Counter {
		return m.upstream.WithLabelValues(k.model, m.label("status", strconv.Itoa(k.status)), k.code)
	})
	m.modelSeries = newSeries(func(model string) modelSeries {
		return modelSeries{m.retries.WithLabelValues(model), m.upDuration.WithLabelValues(model)}
	})
	m.upFirstByteSeries = newSeries(func(model string) prometheus.Observer { return m.upFirstByte.WithLabelValues(model) })
	m.tokensSeries = newSeries(func(k tokensKey) tokensSeries {
		estimated := strconv.FormatBool(k.estimated)
		return tokensSeries{m.tokens.WithLabelValues(k.model, k.agent, "input", estimated),
			m.tokens.WithLabelValues(k.model, k.agent, "output", estimated)}
	})
}
