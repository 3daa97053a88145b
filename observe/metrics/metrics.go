package metrics

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentgw/agentgw/observe"
)

// Options configures Metrics; zero values are the defaults.
type Options struct {
	// MaxValues bounds the distinct values of each label (default 100):
	// later ones are reported as "_other".
	MaxValues int
	// Now is the clock of the durations the Metrics measure themselves
	// (model calls, tools, plan steps; a request's own duration and time
	// to first byte come in its Outcome). Default time.Now.
	Now func() time.Time
	// ScrapeTimeout bounds each query a scrape makes to the database
	// (default 5s).
	ScrapeTimeout time.Duration
	// Logger logs what a scrape could not read (default discards).
	Logger *slog.Logger
	// NoRuntime leaves the Go runtime and process collectors out (tests
	// that compare the whole output).
	NoRuntime bool
}

// Buckets of the histograms, in seconds.
var (
	// firstByteBuckets: times to a first byte, milliseconds to a minute.
	firstByteBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
	// durationBuckets: whole requests and model calls, which stream for
	// minutes.
	durationBuckets = []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
	// workBuckets: tools and plan steps.
	workBuckets = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}
)

// Metrics is the gateway's metrics: an observe.Observer, and the registry
// its Handler serves. Its methods are safe for concurrent use.
type Metrics struct {
	reg           *prometheus.Registry
	now           func() time.Time
	log           *slog.Logger
	scrapeTimeout time.Duration

	// bounds bounds the values of each label, by label name; fixed once
	// New returns.
	bounds map[string]*limiter

	requests       *prometheus.CounterVec
	firstByte      *prometheus.HistogramVec
	duration       *prometheus.HistogramVec
	openStreams    *prometheus.GaugeVec
	streamErrors   *prometheus.CounterVec
	upstream       *prometheus.CounterVec
	retries        *prometheus.CounterVec
	upFirstByte    *prometheus.HistogramVec
	upDuration     *prometheus.HistogramVec
	tokens         *prometheus.CounterVec
	toolCalls      *prometheus.CounterVec
	toolDuration   *prometheus.HistogramVec
	steps          *prometheus.CounterVec
	stepDuration   *prometheus.HistogramVec
	gitOps         *prometheus.CounterVec
	handoffs       *prometheus.CounterVec
	pauses         *prometheus.CounterVec
	scheduleRuns   *prometheus.CounterVec
	storeErrors    *prometheus.CounterVec
	scrapeCountErr prometheus.Counter

	// The series a request reaches, cached (series.go).
	requestSeries *series[requestKey, prometheus.Counter]
	// firstByteSeries and durationSeries are by agent and command.
	firstByteSeries   *series[[2]string, prometheus.Observer]
	durationSeries    *series[[2]string, prometheus.Observer]
	openSeries        *series[string, prometheus.Gauge]
	upstreamSeries    *series[upstreamKey, prometheus.Counter]
	modelSeries       *series[string, modelSeries]
	upFirstByteSeries *series[string, prometheus.Observer]
	tokensSeries      *series[tokensKey, tokensSeries]
}

var _ observe.Observer = (*Metrics)(nil)

// New returns the metrics, registered on a registry of their own.
func New(opts Options) *Metrics {
	if opts.MaxValues <= 0 {
		opts.MaxValues = 100
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ScrapeTimeout <= 0 {
		opts.ScrapeTimeout = 5 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(), now: opts.Now, log: opts.Logger, scrapeTimeout: opts.ScrapeTimeout,
		bounds: map[string]*limiter{},
	}
	f := factory{m.reg, m.bounds, opts.MaxValues}
	m.requests = f.counter("agentgw_requests_total",
		"Requests ended, by source, route pattern, agent, command, outcome (ok, error, paused, canceled) and error code.",
		"source", "route", "agent", "command", "outcome", "code")
	m.firstByte = f.histogram("agentgw_request_first_byte_seconds",
		"Time from an agent request's arrival to the first byte of its answer.", firstByteBuckets, "agent", "command")
	m.duration = f.histogram("agentgw_request_duration_seconds",
		"Time from an agent request's arrival to the end of its answer.", durationBuckets, "agent", "command")
	m.openStreams = f.gauge("agentgw_open_streams", "Agent answers being streamed to HTTP clients now.", "agent")
	m.streamErrors = f.counter("agentgw_stream_errors_total", "Error frames sent inside streams, by error code.", "code")
	m.upstream = f.counter("agentgw_upstream_requests_total",
		"Calls to the model, by the model that answered, the last attempt's HTTP status (0: none came) and error code.",
		"model", "status", "code")
	m.retries = f.counter("agentgw_upstream_retries_total",
		"Attempts beyond the first of calls to the model (retries and fallbacks), by model.", "model")
	m.upFirstByte = f.histogram("agentgw_upstream_first_byte_seconds",
		"Time from a model call's first attempt to its first event, by model.", firstByteBuckets, "model")
	m.upDuration = f.histogram("agentgw_upstream_duration_seconds",
		"Time a model call took, retries included, to its last byte, by model.", durationBuckets, "model")
	m.tokens = f.counter("agentgw_tokens_total",
		"Tokens of model calls, by model, agent, type (input, output) and whether the gateway estimated them (the upstream sent no usage).",
		"model", "agent", "type", "estimated")
	m.toolCalls = f.counter("agentgw_tool_calls_total", "Tool calls, by tool and status (SUCCESS, ERROR, TIMEOUT).", "tool", "status")
	m.toolDuration = f.histogram("agentgw_tool_call_duration_seconds", "Time tool calls took, by tool.", workBuckets, "tool")
	m.steps = f.counter("agentgw_plan_steps_total", "Attempts of plan steps, by step kind and status.", "kind", "status")
	m.stepDuration = f.histogram("agentgw_plan_step_duration_seconds", "Time attempts of plan steps took, by step kind.", workBuckets, "kind")
	m.gitOps = f.counter("agentgw_git_operations_total", "Server-side git operations, by operation and result (ok, error).", "op", "result")
	m.handoffs = f.counter("agentgw_handoffs_sent_total", "Hand-off messages sent, by message type and result (ok, error, limit: kept DEAD at a bound of its task, HANDOFF_LIMIT).", "type", "result")
	m.pauses = f.counter("agentgw_pauses_total",
		"Runs this process paused to wait for the user, by kind (consent, frontend_tool). Resumes may happen on any replica: see agentgw_paused_runs.",
		"kind")
	m.scheduleRuns = f.counter("agentgw_schedule_runs_total",
		"Schedule runs this process recorded, by status (SUCCESS, FAILED, TIMEOUT, SKIPPED, ...).", "status")
	m.storeErrors = f.counter("agentgw_store_errors_total",
		"Failures of the store: requests that met it (source=request: STORE_UNAVAILABLE answered or sent in the stream) and scrapes that could not read it (source=scrape).",
		"source")
	m.cache()
	m.scrapeCountErr = m.storeErrors.WithLabelValues("scrape")
	m.storeErrors.WithLabelValues("request")
	if !opts.NoRuntime {
		m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// Registry is the registry the metrics are on, to register more.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus text format (or protobuf,
// as the scraper asks). A collector that fails does not fail the scrape:
// the others are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// Begin implements observe.Observer: every request is watched.
func (m *Metrics) Begin(ctx context.Context, r *observe.Request) (context.Context, observe.Run) {
	return ctx, &run{m: m, source: m.label("source", r.Source), route: m.label("route", r.Route)}
}

// ScheduleRun counts a schedule run this process recorded; its status is
// the run's (schedule.Config.OnFinish gives it).
func (m *Metrics) ScheduleRun(status string) {
	m.scheduleRuns.WithLabelValues(m.label("status", status)).Inc()
}

// label is v as a value of the label name: v, or Other beyond the
// label's bound. A label of several metrics has one bound.
func (m *Metrics) label(name, v string) string { return m.bounds[name].value(v) }

// factory makes metrics registered on reg, and a bound in bounds for
// each of their labels.
type factory struct {
	reg    *prometheus.Registry
	bounds map[string]*limiter
	max    int
}

func (f factory) register(c prometheus.Collector, labels []string) {
	f.reg.MustRegister(c)
	for _, l := range labels {
		if f.bounds[l] == nil {
			f.bounds[l] = newLimiter(f.max)
		}
	}
}

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.register(v, labels)
	return v
}

func (f factory) gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.register(v, labels)
	return v
}

func (f factory) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.register(v, labels)
	return v
}
