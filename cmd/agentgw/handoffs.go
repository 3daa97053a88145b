package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/agent/dispatch"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/hub"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/remote"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// HandoffsConfig bounds the hand-offs between agents.
type HandoffsConfig struct {
	// MaxHops is the longest chain of messages caused by one another; a
	// message past it is DEAD, HANDOFF_LIMIT (0: 10).
	MaxHops int `yaml:"maxHops"`
	// MaxMessagesPerTask is the most messages one owner's task holds; one
	// more is DEAD, HANDOFF_LIMIT (0: 50).
	MaxMessagesPerTask int `yaml:"maxMessagesPerTask"`
	// MaxExternalPriority is the highest priority of a message sent over
	// the API; the agents of the operator's files are not bound ("":
	// HIGH).
	MaxExternalPriority string `yaml:"maxExternalPriority"`
	// Pools are named pools of agents (the seed's
	// "technical_support_agent_pool"): a recipient_id or escalate_to
	// naming one, and no agent, goes to one of its agents that accepts the
	// type, round-robin, as a list of agents does (default: none).
	Pools map[string][]string `yaml:"pools"`
	// Heartbeat is how often a hand-off run renews its lease while its
	// process is alive; a run not renewed for 3 heartbeats (its process
	// died) is taken back and run again by another replica, or by the
	// process restarted, whatever its timeout. 0 means 5s.
	Heartbeat Duration `yaml:"heartbeat"`
	// Workers is how many hand-off runs this process runs at once (1 to
	// 1000); a run waiting on its model holds a worker, not a CPU. 0 means
	// 32.
	Workers int `yaml:"workers"`
	// FetchCooldown is the shortest time between two looks of the queue
	// for messages to run (1ms to 100ms): a message sent to an idle queue
	// waits at most this long before its run starts, and each look takes
	// up to the free workers' number of messages. 0 means 5ms.
	FetchCooldown Duration `yaml:"fetchCooldown"`
}

// maxHandoffWorkers bounds handoffs.workers.
const maxHandoffWorkers = 1000

// check refuses bounds that are no bounds.
func (c HandoffsConfig) check() error {
	var errs []error
	if c.MaxHops < 0 {
		errs = append(errs, errors.New("handoffs.maxHops must not be negative"))
	}
	if c.MaxMessagesPerTask < 0 {
		errs = append(errs, errors.New("handoffs.maxMessagesPerTask must not be negative"))
	}
	if c.Heartbeat < 0 {
		errs = append(errs, errors.New("handoffs.heartbeat must not be negative"))
	}
	if c.Workers < 0 || c.Workers > maxHandoffWorkers {
		errs = append(errs, fmt.Errorf("handoffs.workers: %d is not 1 to %d (0: the default, %d)", c.Workers, maxHandoffWorkers, queue.DefaultWorkers))
	}
	if d := time.Duration(c.FetchCooldown); d != 0 && (d < queue.MinFetchCooldown || d > queue.MaxFetchCooldown) {
		errs = append(errs, fmt.Errorf("handoffs.fetchCooldown: %s is not %s to %s (0: the default, %s)", d, queue.MinFetchCooldown, queue.MaxFetchCooldown, queue.DefaultFetchCooldown))
	}
	if p := handoff.Priority(c.MaxExternalPriority); p != "" && !p.Valid() {
		errs = append(errs, fmt.Errorf("handoffs.maxExternalPriority: %q must be LOW, MEDIUM, HIGH or CRITICAL", c.MaxExternalPriority))
	}
	for _, name := range slices.Sorted(maps.Keys(c.Pools)) {
		if name == "" || strings.Contains(name, ",") {
			errs = append(errs, fmt.Errorf("handoffs.pools: %q is not a pool name (no commas)", name))
		}
		if len(c.Pools[name]) == 0 {
			errs = append(errs, fmt.Errorf("handoffs.pools.%s: a pool needs at least one agent", name))
		}
		for _, m := range c.Pools[name] {
			if m == "" || strings.Contains(m, ",") || c.Pools[m] != nil {
				errs = append(errs, fmt.Errorf("handoffs.pools.%s: %q is not an agent name (nor another pool)", name, m))
			}
		}
	}
	return errors.Join(errs...)
}

// newHub is the sending side of the gateway's hand-off hub (hub.New),
// bound by cfg, over the agents of reg and the queue q (nil: hand-offs
// are off); its receiving side starts with the queue
// (startHandoffQueue), once the runner exists. keyOK checks the stored
// key a message was sent with before it is delivered (nil: the gateway
// reads no keys).
func newHub(cfg HandoffsConfig, reg *program.Registry, q *queue.Queue, remotes remote.HandoffPoster, keyOK hub.KeyCheck, log *slog.Logger) (*hub.Hub, error) {
	h, err := hub.New(hub.Config{Registry: reg, Queue: q, Remote: remotes, Keys: keyOK,
		Limits: hub.Limits{MaxExternalPriority: handoff.Priority(cfg.MaxExternalPriority)}, Pools: cfg.Pools, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("hand-offs: %w", err)
	}
	return h, nil
}

// openHandoffQueue opens the hand-off queue in the store's database, not
// started: messages can be queued and read, and wait for
// startHandoffQueue. It is nil for the memory store, which keeps no queue
// (hand-offs then answer that they are unavailable).
func openHandoffQueue(ctx context.Context, st store.Store, limits HandoffsConfig, log *slog.Logger) (q *queue.Queue, err error) {
	cfg := queue.Config{Logger: log, MaxHops: limits.MaxHops, MaxMessagesPerTask: limits.MaxMessagesPerTask,
		Heartbeat: time.Duration(limits.Heartbeat), Workers: limits.Workers, FetchCooldown: time.Duration(limits.FetchCooldown)}
	switch s := st.(type) {
	case *sqlitestore.SQLite:
		q, err = queue.NewSQLite(ctx, s.DB(), cfg)
	case *pgstore.Postgres:
		q, err = queue.NewPostgres(ctx, s.Pool(), cfg)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hand-off queue: %w", err)
	}
	return q, nil
}

// startHandoffQueue starts q's workers, delivering through h's receiving
// side over local (the runner); with q nil it says that hand-offs are
// off. stop stops it, leaving what is unfinished for the next start.
func startHandoffQueue(ctx context.Context, q *queue.Queue, h *hub.Hub, local dispatch.Local, budget observe.Budget, log *slog.Logger) (stop func(), err error) {
	if q == nil {
		log.Info("hand-offs: off (the memory store keeps no queue)")
		return func() {}, nil
	}
	if err := q.Start(ctx, h.Handlers(local, budget)); err != nil {
		return nil, fmt.Errorf("starting the hand-off queue: %w", err)
	}
	return func() {
		if err := q.Stop(context.Background()); err != nil {
			log.Warn("stopping the hand-off queue", "err", err)
		}
	}, nil
}

// newRemote is the client of remote agents: their requests and hand-offs
// go to their service.endpoint with the upstream's timeouts; the plugin's
// Authorization is never sent there: it may be meant for the model
// platform. An agent's service.tokenEnv names the token its gateway wants,
// read when a request goes there: tokens finds the agents.
func newRemote(cfg *Config, getenv func(string) string, tokens *remoteTokens, log *slog.Logger) (*remote.Client, error) {
	c, err := remote.New(remote.Config{FirstByteTimeout: time.Duration(cfg.Upstream.FirstByteTimeout),
		IdleTimeout: time.Duration(cfg.Upstream.IdleTimeout), Secrets: gatewaySecrets(cfg, getenv), Logger: log,
		EndpointHeader: func(endpoint string) http.Header { return tokens.header(endpoint, getenv) }})
	if err != nil {
		return nil, fmt.Errorf("remote agents: %w", err)
	}
	return c, nil
}

// remoteTokens finds the token of a remote agent's endpoint in the agents
// loaded (their service.tokenEnv): reg is the gateway's registry, made
// empty before the remote client and swapped in place on every load.
type remoteTokens struct {
	reg *program.Registry
}

// header is the X-Agentgw-Token for endpoint, nil when no agent with that
// endpoint names a token.
func (t *remoteTokens) header(endpoint string, getenv func(string) string) http.Header {
	reg := t.reg
	if reg == nil {
		return nil
	}
	for _, a := range reg.List() {
		if s := a.Def.Service; s != nil && s.Endpoint == endpoint && s.TokenEnv != "" {
			if tok := getenv(s.TokenEnv); tok != "" {
				return http.Header{remote.HeaderToken: {tok}}
			}
		}
	}
	return nil
}

// all is every remote agent's token (their service.tokenEnv), for the
// redaction of what an upstream sends back.
func (t *remoteTokens) all(getenv func(string) string) []string {
	reg := t.reg
	if reg == nil {
		return nil
	}
	var out []string
	for _, a := range reg.List() {
		if s := a.Def.Service; s != nil && s.TokenEnv != "" {
			if tok := getenv(s.TokenEnv); tok != "" {
				out = append(out, tok)
			}
		}
	}
	return out
}
