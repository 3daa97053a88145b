package usage

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/observe"
)

// Price is a model's price in dollars per million tokens.
type Price struct {
	Input  float64 `yaml:"input" json:"input"`
	Output float64 `yaml:"output" json:"output"`
}

// cost is the nano-dollars in input and out output tokens cost.
func (p Price) cost(in, out int64) int64 {
	return int64(math.Round(float64(in)*p.Input*1000 + float64(out)*p.Output*1000))
}

// Budget bounds what a key, a user or a team spends. Exactly one of Key,
// User, Team names whom it bounds; zero limits are no limit.
type Budget struct {
	// Key is a stored key's id (access.Caller.KeyID).
	Key string `yaml:"key" json:"key,omitempty"`
	// User and Team are a stored key's user or team: every key naming it
	// spends the same budget.
	User string `yaml:"user" json:"user,omitempty"`
	Team string `yaml:"team" json:"team,omitempty"`
	// TokensPerDay and TokensPerMonth bound the tokens (in and out) per
	// UTC day and month.
	TokensPerDay   int64 `yaml:"tokensPerDay" json:"tokensPerDay,omitempty"`
	TokensPerMonth int64 `yaml:"tokensPerMonth" json:"tokensPerMonth,omitempty"`
	// DollarsPerDay and DollarsPerMonth bound the cost, priced by the
	// price table.
	DollarsPerDay   float64 `yaml:"dollarsPerDay" json:"dollarsPerDay,omitempty"`
	DollarsPerMonth float64 `yaml:"dollarsPerMonth" json:"dollarsPerMonth,omitempty"`
	// RequestsPerMinute bounds the requests per minute (a fixed window
	// shared by the replicas).
	RequestsPerMinute int64 `yaml:"requestsPerMinute" json:"requestsPerMinute,omitempty"`
}

// subject is whom b bounds, as its counters name it, and whether c is
// bounded by it.
func (b Budget) subject() string {
	switch {
	case b.Key != "":
		return "key:" + b.Key
	case b.User != "":
		return "user:" + b.User
	}
	return "team:" + b.Team
}

// applies reports whether b bounds c.
func (b Budget) applies(c access.Caller) bool {
	switch {
	case b.Key != "":
		return b.Key == c.KeyID
	case b.User != "":
		return b.User == c.User
	}
	return b.Team != "" && b.Team == c.Team
}

// Check reports what is wrong with b, nil when nothing.
func (b Budget) Check() error {
	n := 0
	for _, s := range []string{b.Key, b.User, b.Team} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("a budget names exactly one of key, user, team")
	}
	if b.TokensPerDay < 0 || b.TokensPerMonth < 0 || b.DollarsPerDay < 0 || b.DollarsPerMonth < 0 || b.RequestsPerMinute < 0 {
		return fmt.Errorf("budget of %s: a limit is negative", b.subject())
	}
	if b.TokensPerDay == 0 && b.TokensPerMonth == 0 && b.DollarsPerDay == 0 && b.DollarsPerMonth == 0 && b.RequestsPerMinute == 0 {
		return fmt.Errorf("budget of %s: no limit set", b.subject())
	}
	return nil
}

// Config configures a Meter; zero values are the defaults.
type Config struct {
	// Prices are the models' prices; "*" prices every model not named.
	// A model without a price costs nothing.
	Prices map[string]Price
	// Budgets bound keys, users and teams.
	Budgets []Budget
	// ReserveOutputTokens is the output a request is assumed to make
	// when its reservation is taken (default 512); the input is assumed
	// to be a token per 4 bytes of the request's body.
	ReserveOutputTokens int64
	// WarnAt is the share of a budget past which a warning is logged and
	// counted, once per window (default 0.8).
	WarnAt float64
	// QueueSize bounds the records waiting to be written (default 8192);
	// FlushEvery is the longest they wait (default 1s).
	QueueSize  int
	FlushEvery time.Duration
	// Retention is how long the records are kept (default
	// DefaultRetention); older ones are deleted by an hourly sweep, at
	// most PruneBatches statements of PruneBatch records a sweep
	// (defaults 10 and 1000), so that a sweep's work is bounded and the
	// database's write lock is never held long. The budget counters are
	// kept until their window ends, whatever the retention.
	Retention    time.Duration
	PruneBatch   int
	PruneBatches int
	// Registerer, when set, gets the meter's metrics.
	Registerer prometheus.Registerer
	Logger     *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Meter records what requests cost and holds them to their budgets. It
// is an observe.Observer: the usage of runs no request started
// (schedules, hand-offs) is recorded under their source, and settles the
// reservations its Reserve (observe.Budget) took for them.
type Meter struct {
	cfg Config
	st  *Store
	rec *Recorder
	// top is the highest input and output prices: a reservation, taken
	// before the model is known, is priced at them.
	top      Price
	log      *slog.Logger
	warnings *prometheus.CounterVec
	refused  *prometheus.CounterVec
	dropped  prometheus.Counter
	stopExp  chan struct{}
}

// New returns a Meter over st and starts its recorder; Close stops it.
func New(st *Store, cfg Config) (*Meter, error) {
	if cfg.ReserveOutputTokens <= 0 {
		cfg.ReserveOutputTokens = 512
	}
	if cfg.WarnAt <= 0 || cfg.WarnAt > 1 {
		cfg.WarnAt = 0.8
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 8192
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = time.Second
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Retention < MinRetention {
		return nil, fmt.Errorf("usage: retention %s is under %s: the current month's records are kept", cfg.Retention, MinRetention)
	}
	if cfg.PruneBatch <= 0 {
		cfg.PruneBatch = 1000
	}
	if cfg.PruneBatches <= 0 {
		cfg.PruneBatches = 10
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	for _, b := range cfg.Budgets {
		if err := b.Check(); err != nil {
			return nil, err
		}
	}
	m := &Meter{cfg: cfg, st: st, log: cfg.Logger, stopExp: make(chan struct{}),
		rec: newRecorder(st, cfg.QueueSize, cfg.FlushEvery, cfg.Logger),
		warnings: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentgw_budget_warnings_total",
			Help: "Budgets that went past usage.warnAt of their limit in a window, by whom they bound (key, user, team) and what (tokens, dollars, requests)."},
			[]string{"scope", "metric"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agentgw_budget_refused_total",
			Help: "Requests refused by a budget (BUDGET_EXCEEDED) or a rate limit (RATE_LIMITED), by scope and metric."},
			[]string{"scope", "metric"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "agentgw_usage_records_dropped_total",
			Help: "Usage records dropped because the queue to the database was full."}),
	}
	for _, p := range cfg.Prices {
		m.top.Input, m.top.Output = max(m.top.Input, p.Input), max(m.top.Output, p.Output)
	}
	if cfg.Registerer != nil {
		for _, c := range []prometheus.Collector{m.warnings, m.refused, m.dropped} {
			if err := cfg.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("usage: registering metrics: %w", err)
			}
		}
	}
	m.rec.onDrop = m.dropped.Inc
	go m.rec.Run()
	go m.expire()
	return m, nil
}

// Close writes what is queued and stops the meter.
func (m *Meter) Close() {
	close(m.stopExp)
	m.rec.Close()
}

// Store is the meter's store.
func (m *Meter) Store() *Store { return m.st }

// DefaultRetention is how long usage records are kept when
// Config.Retention is not set: 400 days, a year's report and the month
// before it, and every current budget window.
const DefaultRetention = 400 * 24 * time.Hour

// MinRetention is the shortest retention: a month (31 days), so that the
// records of the current UTC month, which a monthly report reads, are
// always there.
const MinRetention = 31 * 24 * time.Hour

// expire deletes the counters of ended windows and prunes the records
// past the retention, hourly.
func (m *Meter) expire() {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-m.stopExp:
			return
		case <-t.C:
			if err := m.st.Expire(context.Background(), m.cfg.Now()); err != nil {
				m.log.Warn("usage: expiring counters", "err", err)
			}
			if n, err := m.prune(context.Background()); err != nil {
				m.log.Warn("usage: pruning records", "deleted", n, "err", err)
			} else if n > 0 {
				m.log.Info("usage: pruned records past the retention", "deleted", n, "retention", m.cfg.Retention)
			}
		}
	}
}

// prune deletes the records older than the retention, at most
// PruneBatches batches of PruneBatch: what is left waits for the next
// sweep. Replicas may prune at once (Store.Prune).
func (m *Meter) prune(ctx context.Context) (int64, error) {
	cutoff := m.cfg.Now().Add(-m.cfg.Retention)
	var total int64
	for range m.cfg.PruneBatches {
		n, err := m.st.Prune(ctx, cutoff, m.cfg.PruneBatch)
		total += n
		if err != nil || n < int64(m.cfg.PruneBatch) {
			return total, err
		}
	}
	return total, nil
}

// price is the model's price: its own, else "*"'s, else nothing.
func (m *Meter) price(model string) Price {
	if p, ok := m.cfg.Prices[model]; ok {
		return p
	}
	return m.cfg.Prices["*"]
}

// Metrics of a charge.
const (
	metricTokens   = "tokens"
	metricDollars  = "dollars"
	metricRequests = "requests"
)

// charge is a Charge with what it is for.
type charge struct {
	Charge
	// scope and name are whom it bounds (key, user, team and its name),
	// metric and unit what and per what.
	scope, name, metric, unit string
}

// window is the start and end of the UTC day, month or minute of t, and
// its name in counters.
func window(t time.Time, unit string) (end time.Time, name string) {
	t = t.UTC()
	switch unit {
	case "day":
		start := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return start.AddDate(0, 0, 1), start.Format("d2006-01-02")
	case "month":
		start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		return start.AddDate(0, 1, 0), start.Format("m2006-01")
	}
	start := t.Truncate(time.Minute)
	return start.Add(time.Minute), start.Format("t2006-01-02T15:04")
}

// charges are the counters c's request is charged on, estimated at
// tokens and nano-dollars cost, sorted by counter.
func (m *Meter) charges(c access.Caller, tokens, cost int64, now time.Time) []charge {
	var out []charge
	add := func(b Budget, metric, unit string, amount, limit int64) {
		if limit <= 0 {
			return
		}
		end, name := window(now, unit)
		scope, who, _ := cutScope(b.subject())
		out = append(out, charge{Charge: Charge{Counter: b.subject() + "|" + metric + "|" + name, Amount: amount, Limit: limit, Expires: end},
			scope: scope, name: who, metric: metric, unit: unit})
	}
	for _, b := range m.cfg.Budgets {
		if !b.applies(c) {
			continue
		}
		add(b, metricTokens, "day", tokens, b.TokensPerDay)
		add(b, metricTokens, "month", tokens, b.TokensPerMonth)
		add(b, metricDollars, "day", cost, nanos(b.DollarsPerDay))
		add(b, metricDollars, "month", cost, nanos(b.DollarsPerMonth))
		add(b, metricRequests, "minute", 1, b.RequestsPerMinute)
	}
	sortCharges(out)
	return out
}

// nanos is dollars in nano-dollars.
func nanos(dollars float64) int64 { return int64(math.Round(dollars * 1e9)) }

// cutScope splits a subject "team:x" into its scope and name.
func cutScope(subject string) (scope, name string, ok bool) {
	for i := 0; i < len(subject); i++ {
		if subject[i] == ':' {
			return subject[:i], subject[i+1:], true
		}
	}
	return subject, "", false
}

// sortCharges sorts cs by counter (insertion sort: a request has a few).
func sortCharges(cs []charge) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Counter < cs[j-1].Counter; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// Estimate is the tokens a request of bodyBytes bytes (-1: unknown, taken
// as 0) is assumed to use before it runs.
func (m *Meter) Estimate(bodyBytes int64) int64 {
	return (max(bodyBytes, 0)+3)/4 + m.cfg.ReserveOutputTokens
}

// Admit takes the reservation of a request of c, whose body is bodyBytes
// long, on every budget that bounds c, before the request reaches the
// model. It returns the observe.Run that settles the reservation and
// records the request's usage when it ends (add it to the request's
// Watch), or the error to answer: BUDGET_EXCEEDED, RATE_LIMITED (both
// with ResetsAt) or STORE_UNAVAILABLE.
func (m *Meter) Admit(ctx context.Context, c access.Caller, requestID string, bodyBytes int64) (observe.Run, error) {
	t, err := m.admit(ctx, c, observe.SourceHTTP, requestID, bodyBytes)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// admit is Admit of a run of source.
func (m *Meter) admit(ctx context.Context, c access.Caller, source, requestID string, bodyBytes int64) (*ticket, error) {
	in := (max(bodyBytes, 0) + 3) / 4
	t := &ticket{m: m, who: c, source: source, rid: requestID, in: in, tokens: in + m.cfg.ReserveOutputTokens}
	if len(m.cfg.Budgets) == 0 {
		return t, nil
	}
	now := m.cfg.Now()
	t.cost = m.top.cost(in, m.cfg.ReserveOutputTokens)
	cs := m.charges(c, t.tokens, t.cost, now)
	if len(cs) == 0 {
		return t, nil
	}
	plain := make([]Charge, len(cs))
	for i, ch := range cs {
		plain[i] = ch.Charge
	}
	failed, spent, err := m.st.Reserve(ctx, plain)
	if err != nil {
		return nil, apierr.New(apierr.CodeStoreUnavailable, "the gateway could not check the budget").Wrap(err)
	}
	if failed >= 0 {
		return nil, m.refuse(ctx, cs[failed])
	}
	for i, ch := range cs {
		if ch.metric != metricRequests {
			t.settle = append(t.settle, ch)
		}
		warn := int64(math.Ceil(float64(ch.Limit) * m.cfg.WarnAt))
		if spent[i] >= warn && spent[i]-ch.Amount < warn {
			m.warnings.WithLabelValues(ch.scope, ch.metric).Inc()
			m.log.WarnContext(ctx, "usage: budget nearly spent", "counter", ch.Counter, "spent", spent[i], "limit", ch.Limit,
				"request_id", requestID)
		}
	}
	return t, nil
}

var _ observe.Budget = (*Meter)(nil)

// Reserve implements observe.Budget: a run no request started (a
// hand-off's, a schedule's) of owner is held to the budgets of owner's
// user (member:<user>) or team (team:<team>), the identity its objects
// are owned by (access.Caller.Owner): a user's run is not held to the
// budgets of the team or key the user's key named, which the objects do
// not record. Other owners (a static token's, the operator's, a user
// named without inbound auth) are held to no budget, as before.
func (m *Meter) Reserve(ctx context.Context, source, owner, requestID string, size int64) (context.Context, func(), error) {
	c, ok := ownerCaller(owner)
	if !ok || len(m.cfg.Budgets) == 0 {
		return ctx, func() {}, nil
	}
	t, err := m.admit(ctx, c, source, requestID, size)
	if err != nil {
		return ctx, func() {}, err
	}
	release := func() {
		if t.claimed.CompareAndSwap(false, true) {
			t.End(observe.Outcome{}) // no run took it: all of it back
		}
	}
	return context.WithValue(ctx, reservedKey{}, t), release, nil
}

// reservedKey is the context key of the ticket Reserve took.
type reservedKey struct{}

// ownerCaller is the caller whose budgets bound the runs of owner: its
// user of a member:<user>, its team of a team:<team>; false for any other.
func ownerCaller(owner string) (access.Caller, bool) {
	if u, ok := strings.CutPrefix(owner, access.MemberOwner("")); ok && u != "" {
		return access.Caller{User: u}, true
	}
	if t, ok := strings.CutPrefix(owner, access.TeamOwner("")); ok && t != "" {
		return access.Caller{Team: t}, true
	}
	return access.Caller{}, false
}

// refuse is the error of a request ch did not fit.
func (m *Meter) refuse(ctx context.Context, ch charge) *apierr.Error {
	m.refused.WithLabelValues(ch.scope, ch.metric).Inc()
	m.log.InfoContext(ctx, "usage: request refused by a budget", "counter", ch.Counter, "limit", ch.Limit)
	if ch.metric == metricRequests {
		return apierr.Errorf(apierr.CodeRateLimited, "the %s %s may make %d requests a minute", ch.scope, ch.name, ch.Limit).
			Until(ch.Expires).Suggest("wait until the next minute (Retry-After) and try again")
	}
	limit := fmt.Sprintf("%d tokens", ch.Limit)
	if ch.metric == metricDollars {
		limit = fmt.Sprintf("$%.2f", float64(ch.Limit)/1e9)
	}
	return apierr.Errorf(apierr.CodeBudgetExceeded, "the %s %s has spent its budget of %s per %s; it resets at %s",
		ch.scope, ch.name, limit, ch.unit, ch.Expires.UTC().Format(time.RFC3339)).Until(ch.Expires)
}

// keyOf is the key a record of c is kept under: its stored key's id,
// else its static token's identity.
func keyOf(c access.Caller) string {
	if c.KeyID != "" {
		return c.KeyID
	}
	if access.Authenticated(c.Owner) {
		return c.Owner
	}
	return ""
}

// ticket is a request Admit let through: its End settles the reservation
// and records the usage.
type ticket struct {
	observe.Nop
	m   *Meter
	who access.Caller
	// source is where the run comes from (observe.SourceHTTP, ...).
	source, rid string
	// claimed is set once a run (or Reserve's release) took the ticket.
	claimed atomic.Bool
	// in and tokens are the input and the tokens estimated, cost the
	// cost reserved.
	in, tokens, cost int64
	settle           []charge
}

// End implements observe.Run. A request that called the model and
// succeeded but got no usage from it (a passed-through stream whose
// client did not ask for usage) is charged and recorded at its estimate,
// marked estimated: a budget is not bypassed by leaving usage out.
func (t *ticket) End(o observe.Outcome) {
	m := t.m
	in, out := int64(o.Usage.In), int64(o.Usage.Out)
	estimated := o.Usage.Estimated
	if o.Model != "" && in+out == 0 && o.Code == "" {
		in, out, estimated = t.in, t.tokens-t.in, true
	}
	cost := m.price(o.Model).cost(in, out)
	e := entry{}
	if o.Model != "" || in+out > 0 {
		e.rec = &Record{At: m.cfg.Now(), RequestID: t.rid, Source: t.source, Key: keyOf(t.who), User: t.who.User,
			Team: t.who.Team, Agent: o.Agent, Model: o.Model, In: in, Out: out, Estimated: estimated, Cost: cost}
	}
	for _, ch := range t.settle {
		d := in + out - t.tokens
		if ch.metric == metricDollars {
			d = cost - t.cost
		}
		if d != 0 {
			e.deltas = append(e.deltas, delta{ch.Counter, d})
		}
	}
	if e.rec != nil || len(e.deltas) > 0 {
		m.rec.Add(e)
	}
}

// Begin implements observe.Observer. A request over HTTP that may be
// metered (a POST) is given a Watch, so that Admit's Run has one to join
// (observe.Watch.Also). A run no request started (a schedule's, a
// hand-off's) settles the reservation Reserve put in ctx when it is the
// first to take it; a later run in that context is charged what it uses
// on the same budgets; a run with no reservation is recorded under its
// source, with no budget.
func (m *Meter) Begin(ctx context.Context, r *observe.Request) (context.Context, observe.Run) {
	if r.Source == observe.SourceHTTP {
		if r.Method == "POST" {
			return ctx, observe.Nop{}
		}
		return ctx, nil
	}
	if t, ok := ctx.Value(reservedKey{}).(*ticket); ok {
		if t.claimed.CompareAndSwap(false, true) {
			return ctx, t
		}
		more := &ticket{m: m, who: t.who, source: r.Source, rid: r.RequestID}
		for _, ch := range m.charges(t.who, 0, 0, m.cfg.Now()) {
			if ch.metric != metricRequests {
				more.settle = append(more.settle, ch)
			}
		}
		more.claimed.Store(true)
		return ctx, more
	}
	return ctx, &background{m: m, source: r.Source, rid: r.RequestID}
}

// background records the usage of a run no request started.
type background struct {
	observe.Nop
	m           *Meter
	source, rid string
}

// End implements observe.Run.
func (b *background) End(o observe.Outcome) {
	if o.Model == "" && o.Usage.In+o.Usage.Out == 0 {
		return
	}
	m := b.m
	in, out := int64(o.Usage.In), int64(o.Usage.Out)
	m.rec.Add(entry{rec: &Record{At: m.cfg.Now(), RequestID: b.rid, Source: b.source, Agent: o.Agent, Model: o.Model,
		In: in, Out: out, Estimated: o.Usage.Estimated, Cost: m.price(o.Model).cost(in, out)}})
}

// Summary is the usage of the records since since grouped by by, as c may
// see it: an admin every key's, any other caller its own key's.
func (m *Meter) Summary(ctx context.Context, c access.Caller, by string, since time.Time) ([]Row, error) {
	q := Query{By: by, Since: since}
	if !c.Admin {
		q.Key = keyOf(c)
		if q.Key == "" {
			return []Row{}, nil
		}
	}
	return m.st.Summary(ctx, q)
}
