package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/observe/metrics"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
	"github.com/agentgw/agentgw/usage"
)

// UsageConfig is what requests cost (package usage, docs/usage.md): their
// usage recorded per key, user, team, agent and model, and the budgets
// and rate limits of keys, users and teams.
type UsageConfig struct {
	// Record keeps the tokens and cost of every request that calls the
	// model (GET /usage, agentgw usage). Budgets record too.
	Record bool `yaml:"record"`
	// Prices are each model's price in dollars per million tokens (input,
	// output); "*" prices the models not named. A model without a price
	// costs nothing.
	Prices map[string]usage.Price `yaml:"prices"`
	// Budgets bound what a key, a user or a team spends: tokens or
	// dollars per UTC day or month, requests per minute. A request over
	// one is refused before it reaches the model (BUDGET_EXCEEDED,
	// RATE_LIMITED).
	Budgets []usage.Budget `yaml:"budgets"`
	// ReserveOutputTokens is the answer a request is assumed to make when
	// its reservation is taken (its input is assumed to be a token per 4
	// bytes of its body); the real usage settles it. 0 means 512.
	ReserveOutputTokens int64 `yaml:"reserveOutputTokens"`
	// WarnAt is the share of a budget past which a warning is logged and
	// counted (agentgw_budget_warnings_total), once per window. 0 means 0.8.
	WarnAt float64 `yaml:"warnAt"`
	// Retention is how long the usage records are kept (GET /usage, agentgw
	// usage); older ones are deleted by an hourly sweep, in bounded
	// batches. 0 means 400 days (9600h); at least 31 days (744h). The
	// budgets' counters are kept until their day or month ends, whatever
	// the retention.
	Retention Duration `yaml:"retention"`
}

// on reports whether anything of usage is configured.
func (u UsageConfig) on() bool { return u.Record || len(u.Budgets) > 0 }

// check reports what is wrong with u.
func (u UsageConfig) check() error {
	var errs []error
	for i, b := range u.Budgets {
		if err := b.Check(); err != nil {
			errs = append(errs, fmt.Errorf("usage.budgets[%d]: %w", i, err))
		}
	}
	for m, p := range u.Prices {
		if p.Input < 0 || p.Output < 0 {
			errs = append(errs, fmt.Errorf("usage.prices[%q]: a price is negative", m))
		}
	}
	if u.WarnAt < 0 || u.WarnAt > 1 {
		errs = append(errs, fmt.Errorf("usage.warnAt: %v must be between 0 and 1", u.WarnAt))
	}
	if u.ReserveOutputTokens < 0 {
		errs = append(errs, errors.New("usage.reserveOutputTokens must not be negative"))
	}
	if r := time.Duration(u.Retention); r != 0 && r < usage.MinRetention {
		errs = append(errs, fmt.Errorf("usage.retention: %s is under %s (31 days): the current month's records are kept", r, usage.MinRetention))
	}
	return errors.Join(errs...)
}

// newMeter builds the meter of cfg.Usage on the store st, nil when usage
// is not configured; its metrics on mx when there are metrics. The memory
// store keeps no usage: with budgets or recording configured it is an
// error rather than budgets silently off.
func newMeter(ctx context.Context, st store.Store, cfg *Config, mx *metrics.Metrics, log *slog.Logger) (*usage.Meter, error) {
	u := cfg.Usage
	if !u.on() {
		return nil, nil
	}
	var us *usage.Store
	var err error
	switch db := st.(type) {
	case *sqlitestore.SQLite:
		us, err = usage.NewSQLite(ctx, db.DB(), log)
	case *pgstore.Postgres:
		us, err = usage.NewPostgres(ctx, db.Pool(), log)
	default:
		return nil, errors.New("usage: the memory store keeps no usage or budgets; use SQLite (the default) or PostgreSQL (store.url)")
	}
	if err != nil {
		return nil, err
	}
	mc := usage.Config{Prices: u.Prices, Budgets: u.Budgets, ReserveOutputTokens: u.ReserveOutputTokens, WarnAt: u.WarnAt,
		Retention: time.Duration(u.Retention), Logger: log}
	if mx != nil {
		mc.Registerer = mx.Registry()
	}
	m, err := usage.New(us, mc)
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	log.Info("usage: recording", "budgets", len(u.Budgets), "prices", len(u.Prices))
	return m, nil
}

// meterAPI serves server.Meter with the usage meter.
type meterAPI struct{ *usage.Meter }

var _ server.Meter = meterAPI{}

// usageAnswer is the answer of GET /usage.
type usageAnswer struct {
	By    string      `json:"by"`
	Since time.Time   `json:"since"`
	Rows  []usage.Row `json:"rows"`
}

// Usage is GET /usage's answer (usage.Meter.Summary) as JSON.
func (a meterAPI) Usage(ctx context.Context, who access.Caller, by string, since time.Time) (json.RawMessage, error) {
	if !usage.ValidBy(by) {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "by %q is not one of key, user, team, agent, model", by)
	}
	rows, err := a.Summary(ctx, who, by, since)
	if err != nil {
		return nil, apierr.New(apierr.CodeStoreUnavailable, "the gateway could not read the usage").Wrap(err)
	}
	return marshalAPI("usage", usageAnswer{By: by, Since: since.UTC(), Rows: rows})
}
