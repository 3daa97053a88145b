package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/prompt"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/conversation/binding"
	"github.com/agentgw/agentgw/echomodel"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/guard"
	"github.com/agentgw/agentgw/keys"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/mcp"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/openaiapi"
	"github.com/agentgw/agentgw/remote"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
	"github.com/agentgw/agentgw/ui"
)

// newServeCmd is agentgw serve.
func newServeCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve agents to IDE plugins",
		Long: `Serve agents to IDE plugins: the gateway, until interrupted (SIGINT, SIGTERM).

The configuration is the embedded defaults, then the config file (--config,
AGENTGW_CONFIG), then the environment (AGENTGW_*), then the flags given here.
With no upstream model platform configured, the model built into the binary
answers.`,
		Example: `  agentgw serve
  agentgw serve --config agentgw.yaml
  agentgw serve --agents ./agents --upstream https://api.example/v1 --addr :18080`,
		Args: cobra.NoArgs,
	}
	g := newGatewayFlags(cmd.Flags(), allGatewayFlags)
	cmd.RunE = func(*cobra.Command, []string) error { return exit(cmdServe(g, e.getenv, e.stderr)) }
	return cmd
}

// cmdServe loads the configuration and serves until interrupted.
func cmdServe(g *gatewayFlags, getenv func(string) string, stderr io.Writer) int {
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	log := newLogger(cfg.Log, stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, cfg, getenv, log, nil); err != nil {
		log.Error("agentgw stopped", "err", err)
		return 1
	}
	return 0
}

// serve runs the gateway until ctx ends. When ready is not nil it receives
// the listening address (tests use it).
func serve(ctx context.Context, cfg *Config, getenv func(string) string, log *slog.Logger, ready chan<- string) error {
	st, err := newStore(ctx, cfg, getenv, runtime.GOOS, log)
	if err != nil {
		return err
	}
	defer st.close()
	mx := newMetrics(cfg, st.Store, log)
	mainMetrics, debugMetrics := metricsHandlers(cfg, mx)
	secret, err := stateSecret(cfg, getenv, st, log)
	if err != nil {
		return err
	}
	// The secret kept in the data directory is a credential the upstream
	// client must redact too (one from the environment it finds itself).
	if cfg.Upstream.URL == echomodel.URL {
		if err := startBuiltinModel(ctx, cfg, log); err != nil {
			return err
		}
	}
	repos, err := newRepos(cfg, getenv, log)
	if err != nil {
		return err
	}
	pool := mcp.NewPool(versionString(), log)
	defer pool.Close()
	// Built in dependency order, nothing given to a part after it is made:
	// the registry is made empty and swapped in place on every load; the
	// hand-off queue is opened (not started) for the hub's sending side,
	// which the loader's hand-off step kind sends through; the runner is
	// built over the loader's step kinds; the queue's workers start with
	// the hub's receiving side over the runner. The ask step and the
	// ask_agent tool reach the agents through the runner of the run asking
	// (agent/dispatch).
	reg := program.NewRegistry(nil)
	tokens := &remoteTokens{reg: reg}
	remotes, err := newRemote(cfg, getenv, tokens, log)
	if err != nil {
		return err
	}
	q, err := openHandoffQueue(ctx, st.Store, cfg.Handoffs, log)
	if err != nil {
		return err
	}
	// The keys before the hub and the schedules: a hand-off sent with a
	// key, and a run of a schedule made with one, check the key is live.
	var keysAPI server.Keys
	var keyStore *keys.Store
	if cfg.Server.Keys {
		if keyStore, err = openKeys(ctx, st.Store, log); err != nil {
			return err
		}
		keysAPI = keys.API{Store: keyStore}
		log.Info("inbound keys: the store's (agentgw keys)")
	}
	handoffs, err := newHub(cfg.Handoffs, reg, q, remotes, keyCheck(keyStore), log)
	if err != nil {
		return err
	}
	knowledge, err := newKnowledge(ctx, st.Store, cfg, getenv, repos, log)
	if err != nil {
		return err
	}
	conversations := contextRepo(st.Store, cfg.Contexts)
	ld := newLoader(cfg, getenv, services{repos: repos, pool: pool, handoffs: handoffs, knowledge: knowledge,
		conversations: conversations, log: log}, log)
	set := ld.load(agentSet{}, log)
	reg.SwapLoaded(set.agents, set.problems)
	// The content guard is made over the agents loaded, before the
	// upstream client whose requests it guards.
	content, err := newContentGuard(cfg, reg, mx, log)
	if err != nil {
		return err
	}
	client, err := newLLM(cfg, getenv, log, string(secret), content.guard)
	if err != nil {
		return err
	}
	observers, stopObservers, err := newObservers(ctx, cfg, getenv, log)
	if err != nil {
		return err
	}
	defer stopObservers()
	if mx != nil {
		observers = append(observers, mx)
	}
	if content.guard != nil {
		observers = append(observers, content.guard)
	}
	// The meter watches the runs no request started (schedules, hand-offs)
	// through the runner's observers; the server adds it to its own.
	meter, err := newMeter(ctx, st.Store, cfg, mx, log)
	if err != nil {
		return err
	}
	runObservers := observers
	var meterSrv server.Meter
	// budget holds hand-offs' and schedules' runs to their creators'
	// budgets (the meter settles them as their runs' observer).
	var budget observe.Budget
	if meter != nil {
		defer meter.Close()
		runObservers = append(slices.Clip(observers), meter)
		meterSrv = meterAPI{meter}
		budget = meter
	}
	runner := runner.NewRunner(reg, runner.RunnerConfig{
		Conversations: binding.New(conversations), Remote: remote.NewAgents(remotes), Stages: requestStages(services{knowledge: knowledge, content: content, log: log}),
		LLM: client, Signer: actions.NewSigner(secret, time.Duration(cfg.State.TTL)),
		Kinds: ld.kinds, Store: st.Store, StateTTL: time.Duration(cfg.State.TTL), Parallel: cfg.Plans.Parallel,
		MaxToolRounds: cfg.Tools.MaxRounds, PauseTTL: time.Duration(cfg.Tools.PauseTTL),
		DefaultModel: cfg.Upstream.DefaultModel, AllowRequestDefinitions: cfg.AllowRequestDefinitions,
		Budget: prompt.Budget{DefaultContextLength: cfg.Budget.DefaultContextLength, ReplyReserve: cfg.Budget.ReplyReserve, Models: cfg.Budget.Models},
		Logger: log, Observers: runObservers, ReferencesPrompt: kb.PromptText,
	})
	stopQueue, err := startHandoffQueue(ctx, q, handoffs, runner, budget, log)
	if err != nil {
		return err
	}
	defer stopQueue()
	var handoffsAPI server.Handoffs
	if q != nil {
		handoffsAPI = handoffAPI{h: handoffs}
	}
	watchQueue(mx, q, log)
	scheds, stopSchedules, err := newSchedules(ctx, st.Store, cfg, runner, services{handoffs: handoffs, log: log}.sender(), budget, scheduleRuns(mx), keyCheck(keyStore), log)
	if err != nil {
		return err
	}
	defer stopSchedules()
	scheds.syncAgents(ctx, set)
	var schedulesAPI server.Schedules
	if scheds != nil {
		schedulesAPI = scheduleAPI{api: scheds.api}
	}
	openAI, err := newOpenAI(cfg, getenv, runner, string(secret), tokens, log)
	if err != nil {
		return err
	}
	authTokens, adminTokens := inboundTokens(cfg, getenv)
	authOn := len(authTokens)+len(adminTokens) > 0 || keysAPI != nil
	playground := ui.Handler()
	srv := server.New(server.Config{
		Runner: runner, Logger: log, BodyLimit: cfg.Server.BodyLimit, KeepAlive: time.Duration(cfg.Server.KeepAlive),
		Terminator: cfg.Server.Terminator, PublicURL: cfg.PublicURL, AuthTokens: authTokens,
		AdminTokens: adminTokens, Keys: keysAPI,
		RateLimit: cfg.Server.RateLimit, RateBurst: cfg.Server.RateBurst, Version: versionString(),
		ReadHeaderTimeout: time.Duration(cfg.Server.ReadHeaderTimeout), BodyReadTimeout: time.Duration(cfg.Server.BodyReadTimeout),
		MCP:      mcp.NewHandler("agentgw", versionString(), exportedTools(reg, runner), log),
		Contexts: conversations,
		Handoffs: handoffsAPI, Schedules: schedulesAPI, Knowledge: newKnowledgeAPI(knowledge),
		Metrics:   mainMetrics,
		Observers: observers,
		UI:        playground,
		OpenAI:    openAI,
		Meter:     meterSrv,
	})
	addr := listenAddr(cfg.Addr, authOn)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if cfg.DebugAddr != "" {
		if err := serveDebug(ctx, cfg.DebugAddr, debugMetrics, log); err != nil {
			_ = ln.Close()
			return err
		}
	}
	if knowledge != nil {
		go knowledge.Run(ctx, reindexEvery(cfg))
	}
	go reloadOnHUP(ctx, reg, ld, set, log, func(set agentSet) { scheds.syncAgents(ctx, set) })
	log.Info("agentgw listening", "addr", ln.Addr().String(), "agents", reg.Names(), "upstream", upstreamLabel(cfg), "version", versionString())
	warnExposed(log, ln.Addr(), authOn)
	if playground != nil {
		logPlayground(log, ln.Addr())
	}
	if ready != nil {
		ready <- ln.Addr().String()
	}
	grace := time.Duration(cfg.Server.ShutdownGrace)
	if grace <= 0 {
		grace = 10 * time.Second
	}
	return srv.Serve(ctx, ln, grace)
}

// stateSecret is the key that signs action state: the environment's, else
// the one kept in the data directory (so that a run a restart finds in the
// store still verifies), else a random one for this process (nil: the
// signer makes it).
func stateSecret(cfg *Config, getenv func(string) string, st *openStore, log *slog.Logger) ([]byte, error) {
	secret := []byte(getenv(cfg.State.SecretEnv))
	var err error
	switch {
	case len(secret) > 0:
	case st.dataDir != "":
		// The run a restart finds in the store must still verify.
		if secret, err = dataDirSecret(st.dataDir); err != nil {
			return nil, fmt.Errorf("data directory %s: %w", st.dataDir, err)
		}
		log.Info("no action state secret set: using the one kept in the data directory, so replicas on other hosts cannot verify each other's actions",
			"env", cfg.State.SecretEnv, "path", filepath.Join(st.dataDir, secretFile))
	default:
		log.Info("no action state secret set: using a random one, so replicas cannot verify each other's actions", "env", cfg.State.SecretEnv)
	}
	return secret, nil
}

// newOpenAI builds the OpenAI-compatible endpoint over run, passing the
// models that are no agent through to the upstream when configured to.
// The passthrough redacts every credential the gateway knows from what the
// upstream sends back: the upstream key, gatewaySecrets, the action state
// secret kept (keptSecret) and the remote agents' tokens.
func newOpenAI(cfg *Config, getenv func(string) string, run *runner.Runner, keptSecret string, tokens *remoteTokens, log *slog.Logger) (*openaiapi.Handler, error) {
	oc := openaiapi.Config{Runner: run, BodyLimit: cfg.Server.BodyLimit, KeepAlive: time.Duration(cfg.Server.KeepAlive), Logger: log}
	if err := openaiapi.CheckPatterns(cfg.OpenAI.PassthroughModels); err != nil {
		return nil, fmt.Errorf("openai.passthroughModels: %w", err)
	}
	if cfg.OpenAI.Passthrough && cfg.Upstream.URL != "" {
		oc.PassthroughModels = passthroughModels(cfg)
		pc := openaiapi.PassthroughConfig{BaseURL: cfg.Upstream.URL, FirstByteTimeout: time.Duration(cfg.Upstream.FirstByteTimeout), Logger: log,
			Secrets: append(gatewaySecrets(cfg, getenv), keptSecret), MoreSecrets: func() []string { return tokens.all(getenv) }}
		if llm.AuthMode(cfg.Upstream.Auth) == llm.AuthKey {
			pc.APIKey = getenv(cfg.Upstream.KeyEnv)
		}
		p, err := openaiapi.NewPassthrough(pc)
		if err != nil {
			return nil, err
		}
		oc.Passthrough = p
	}
	return openaiapi.New(oc), nil
}

// passthroughModels are the models the OpenAI endpoint passes through:
// openai.passthroughModels, or, unset, every model with a real upstream and
// none with the built-in echo model (a typo'd model name would otherwise be
// answered by it, and with a real upstream be a paid call).
func passthroughModels(cfg *Config) []string {
	switch {
	case cfg.OpenAI.PassthroughModels != nil:
		return cfg.OpenAI.PassthroughModels
	case cfg.Upstream.builtinAt != "":
		return nil
	default:
		return []string{"*"}
	}
}

// startBuiltinModel serves the model inside the binary on a loopback port
// of its own and makes it cfg's upstream.
func startBuiltinModel(ctx context.Context, cfg *Config, log *slog.Logger) error {
	base, err := echomodel.Start(ctx, time.Duration(cfg.Upstream.BuiltinPace))
	if err != nil {
		return err
	}
	if cfg.Upstream.builtinDefault {
		log.Info("no upstream configured: model commands are answered by the built-in echo model, which streams back what it received; "+
			"point at a real model with --upstream URL, AGENTGW_UPSTREAM_URL or upstream.url (e.g. https://api.openai.com/v1)", "url", base)
	} else {
		log.Info("upstream: the built-in echo model (it answers with what it received)", "url", base)
	}
	cfg.Upstream.URL, cfg.Upstream.builtinAt = base, base
	return nil
}

func upstreamLabel(cfg *Config) string {
	if cfg.Upstream.URL == "" {
		return "none (model commands will say how to configure one)"
	}
	if cfg.Upstream.builtinAt != "" {
		return echomodel.URL + " at " + cfg.Upstream.builtinAt
	}
	return cfg.Upstream.URL + " (auth " + cfg.Upstream.Auth + ")"
}

// newLLM builds the upstream client, or nil when none is configured; g,
// when set, guards every request it sends (package guard).
func newLLM(cfg *Config, getenv func(string) string, log *slog.Logger, keptSecret string, g *guard.Guard) (*llm.Client, error) {
	u := cfg.Upstream
	if u.URL == "" {
		return nil, nil
	}
	lc := llm.Config{BaseURL: u.URL, Auth: llm.AuthMode(u.Auth), Logger: log, HTTP2Cleartext: u.HTTP2Cleartext,
		FirstByteTimeout: time.Duration(u.FirstByteTimeout), IdleTimeout: time.Duration(u.IdleTimeout),
		Retry:          llm.RetryPolicy{Retries: u.Retries, Backoff: time.Duration(u.RetryBackoff), MaxBackoff: time.Duration(u.RetryMaxBackoff)},
		FallbackModels: u.FallbackModels, Secrets: gatewaySecrets(cfg, getenv)}
	if g != nil {
		lc.Guard = g
	}
	if keptSecret != "" {
		lc.Secrets = append(lc.Secrets, keptSecret)
	}
	if lc.Auth == llm.AuthKey {
		lc.APIKey = getenv(u.KeyEnv)
		if lc.APIKey == "" {
			return nil, fmt.Errorf("upstream.auth is key but the environment variable %s is empty", u.KeyEnv)
		}
	}
	c, err := llm.New(lc)
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	return c, nil
}

// gatewaySecrets are the credentials the gateway holds besides the upstream
// key: its inbound tokens, its action state secret and the git remotes'
// credentials. The upstream client redacts them from upstream messages,
// should one ever carry them.
func gatewaySecrets(cfg *Config, getenv func(string) string) []string {
	secrets := append(splitTokens(getenv(cfg.Server.AuthTokensEnv)), splitTokens(getenv(cfg.Server.AdminTokensEnv))...)
	if u, err := url.Parse(cfg.Store.URL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			secrets = append(secrets, pw)
		}
	}
	envs := []string{cfg.State.SecretEnv}
	for _, r := range cfg.Git.Repositories {
		if r.Auth != nil {
			envs = append(envs, r.Auth.PasswordEnv, r.Auth.TokenEnv)
		}
	}
	for _, name := range envs {
		if v := getenv(name); name != "" && v != "" {
			secrets = append(secrets, v)
		}
	}
	return secrets
}

// openStore is the store of paused runs and plan state, and how to close it.
type openStore struct {
	store.Store
	close func()
	// dataDir is the data directory the store is in, "" for a store
	// configured elsewhere.
	dataDir string
}

// newStore opens the configured store: PostgreSQL (store.url), a SQLite
// file (store.path), memory (store.memory), else the SQLite file
// agentgw.db in the data directory (cfg.Data, default the user's state
// directory on goos), so that a restart loses nothing. It logs which store
// and where; the PostgreSQL URL without its password.
func newStore(ctx context.Context, cfg *Config, getenv func(string) string, goos string, log *slog.Logger) (*openStore, error) {
	switch {
	case cfg.Store.URL != "":
		p, err := pgstore.Open(ctx, cfg.Store.URL, store.WithLogger(log), store.WithMaxConns(cfg.Store.Postgres.MaxConns))
		if err != nil {
			return nil, err // it names the URL redacted
		}
		log.Info("store: PostgreSQL", "url", store.RedactURL(cfg.Store.URL))
		return &openStore{Store: p, close: func() { _ = p.Close() }}, nil
	case cfg.Store.Memory:
		log.Info("store: memory (a restart loses paused runs and plan state)")
		return &openStore{Store: store.NewMemory(), close: func() {}}, nil
	}
	path, dataDir := cfg.Store.Path, ""
	if path == "" {
		dir := cfg.Data
		if dir == "" {
			d, err := defaultDataDir(goos, getenv)
			if err != nil {
				return nil, fmt.Errorf("data directory: %w", err)
			}
			dir = d
		}
		p, err := prepareDataDir(dir)
		if err != nil {
			return nil, fmt.Errorf("data directory %s: %w", dir, err)
		}
		path, dataDir = p, dir
	}
	s, err := sqlitestore.Open(path, store.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	log.Info("store: SQLite", "path", path)
	return &openStore{Store: s, close: func() { _ = s.Close() }, dataDir: dataDir}, nil
}

// newRepos builds the server-side repositories for git steps, or nil when
// none are configured.
func newRepos(cfg *Config, getenv func(string) string, log *slog.Logger) (*gitrepo.Manager, error) {
	if len(cfg.Git.Repositories) == 0 {
		return nil, nil
	}
	m, err := gitrepo.New(cfg.Git, getenv, log)
	if err != nil {
		return nil, fmt.Errorf("git repositories: %w", err)
	}
	log.Info("repositories for git steps", "names", m.Names())
	return m, nil
}

// reloadOnHUP reloads the agent definitions on SIGHUP and swaps them in
// for cur, the set loaded before.
func reloadOnHUP(ctx context.Context, reg *program.Registry, l *loader, cur agentSet, log *slog.Logger, after func(agentSet)) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			cur = reload(reg, l, cur, log)
			after(cur)
		}
	}
}

// reload loads the agent definitions and swaps them in for old, keeping
// the version of old of an agent whose file now has errors, then closes
// the tools of old no longer used: requests in flight keep the old agents,
// and each old tool is released once no call to it is in flight. It
// returns the new set.
func reload(reg *program.Registry, l *loader, old agentSet, log *slog.Logger) agentSet {
	set := l.load(old, log)
	reg.SwapLoaded(set.agents, set.problems)
	log.Info("agent definitions reloaded", "agents", reg.Names(), "problems", len(set.problems))
	old.closeReplaced(set, log)
	return set
}

func splitTokens(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// contextRepo is the conversation contexts' repository on st, nil (no
// /contexts routes) for a store without Swap: every store of package
// store has it.
func contextRepo(st store.Store, cfg ContextsConfig) conversation.Repo {
	b, ok := st.(conversation.Backend)
	if !ok {
		return nil
	}
	return conversation.NewStoreRepo(b, conversation.Config{TTL: time.Duration(cfg.TTL), MaxMessages: cfg.MaxMessages,
		MaxBytes: cfg.MaxBytes, MaxChanges: cfg.MaxChanges, MaxDepth: cfg.MaxDepth})
}
