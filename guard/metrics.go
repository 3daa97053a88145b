package guard

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the guard's counters: what it took out of prompts, never
// the secrets.
type Metrics struct {
	redactions *prometheus.CounterVec
	withheld   *prometheus.CounterVec
}

func newMetrics() *Metrics {
	return &Metrics{
		redactions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentgw_redactions_total",
			Help: "Credentials replaced by a placeholder in the prompts of model calls, by gitleaks rule id."}, []string{"rule"}),
		withheld: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentgw_content_withheld_total",
			Help: "Files whose content the content exclusion policy withheld from the model, by where they were (activeEditor, packageFiles, knowledgeBase, tool_result)."}, []string{"where"}),
	}
}

// register registers the metrics on reg.
func (m *Metrics) register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.redactions, m.withheld} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("registering the content guard's metrics: %w", err)
		}
	}
	return nil
}
