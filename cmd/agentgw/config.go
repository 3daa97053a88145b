package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/internal/urlallow"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/schedule/agentrun"
	"github.com/agentgw/agentgw/store"
)

// Config is the gateway configuration file (configs/gateway.yaml documents
// every key).
type Config struct {
	// Addr is where to listen; "" means 127.0.0.1:18080, or :18080 when
	// inbound auth is configured (listenAddr).
	Addr      string `yaml:"addr"`
	DebugAddr string `yaml:"debugAddr"`
	PublicURL string `yaml:"publicURL"`
	// Data is the data directory: the default store is the SQLite file
	// agentgw.db in it. "" is the user's state directory (defaultDataDir).
	Data                    string         `yaml:"data"`
	Agents                  []string       `yaml:"agents"`
	AllowRequestDefinitions bool           `yaml:"allowRequestDefinitions"`
	Upstream                UpstreamConfig `yaml:"upstream"`
	Server                  ServerConfig   `yaml:"server"`
	State                   StateConfig    `yaml:"state"`
	Budget                  BudgetConfig   `yaml:"budget"`
	Plans                   PlansConfig    `yaml:"plans"`
	Tools                   ToolsConfig    `yaml:"tools"`
	Store                   StoreConfig    `yaml:"store"`
	Contexts                ContextsConfig `yaml:"contexts"`
	Git                     gitrepo.Config `yaml:"git"`
	Log                     LogConfig      `yaml:"log"`
	// Schedules run agents' commands or tools on a schedule; agent files
	// may define more.
	Schedules []*agent.ScheduleDef `yaml:"schedules"`
	// schedulePos is where the config file wrote Schedules (config_schedules.go).
	schedulePos []schedulePos
	Scheduler   SchedulerConfig `yaml:"scheduler"`
	// KnowledgeBases are recalled by agents (recallByAgent), recall steps
	// and the search_knowledge tool.
	KnowledgeBases []kb.Config     `yaml:"knowledgeBases"`
	Knowledge      KnowledgeConfig `yaml:"knowledge"`
	Metrics        MetricsConfig   `yaml:"metrics"`
	// OpenAI is the OpenAI-compatible endpoint under /v1/.
	OpenAI OpenAIConfig `yaml:"openai"`
	// Handoffs bounds the hand-offs between agents (handoffs.go).
	Handoffs HandoffsConfig `yaml:"handoffs"`
	// ContentGuard is what never leaves the building: excluded files and
	// redacted credentials (contentguard.go).
	ContentGuard ContentGuardConfig `yaml:"contentGuard"`
	// Usage records what requests cost and holds keys, users and teams
	// to their budgets (usage.go).
	Usage UsageConfig `yaml:"usage"`
}

// OpenAIConfig is the OpenAI-compatible endpoint (package openaiapi).
type OpenAIConfig struct {
	// Passthrough sends the chat completions of models that are no agent
	// to the upstream as they are; off, they are model_not_found.
	Passthrough bool `yaml:"passthrough"`
	// PassthroughModels are the models passed through, as path.Match
	// patterns ("gpt-4o*", "*"); any other model that is no agent is
	// model_not_found and the upstream is not called. Unset: every model
	// with a real upstream, none with the built-in echo model; [] admits
	// none.
	PassthroughModels []string `yaml:"passthroughModels"`
}

// SchedulerConfig is how schedules run.
type SchedulerConfig struct {
	// Tick is the longest wait between two looks for due runs (a schedule
	// made on another replica, a run whose replica died), at most a
	// heartbeat; this replica's own changes wake it at once. 0 means 5s.
	Tick Duration `yaml:"tick"`
	// DefaultTimeout bounds the runs of schedules without a timeout; 0
	// means 10m.
	DefaultTimeout Duration `yaml:"defaultTimeout"`
	// WebhookAllow are the URL prefixes schedules' webhooks may name.
	WebhookAllow []string `yaml:"webhookAllow"`
	// MaxPerOwner is how many schedules one caller may make over the API
	// (more is 409 SCHEDULE_QUOTA_EXCEEDED); the config's and the agent
	// files' schedules do not count. 0 means 20.
	MaxPerOwner int `yaml:"maxPerOwner"`
	// MinInterval is the shortest time between two runs of a schedule made
	// over the API: a shorter every, or a cron whose runs come closer, is
	// 422 SCHEDULE_TOO_FREQUENT; the config's and the agent files'
	// schedules are not bound by it. 0 means 1m.
	MinInterval Duration `yaml:"minInterval"`
	// Heartbeat is how often a schedule run renews its lease while its
	// replica is alive; a run not renewed for 3 heartbeats (its replica
	// died) is recorded FAILED, interrupted, by any replica or the one
	// restarted. 0 means 5s.
	Heartbeat Duration `yaml:"heartbeat"`
}

// ToolsConfig is how tools run.
type ToolsConfig struct {
	// Files are shared tool files: YAML lists of tools every agent may use.
	Files []string `yaml:"files"`
	// WorkRoots are the directories tools' workdirs must stay inside.
	WorkRoots []string `yaml:"workRoots"`
	// HTTPAllow are the URL prefixes http tools may call.
	HTTPAllow []string `yaml:"httpAllow"`
	// Python and Node are the interpreters; "" looks them up on PATH.
	Python string `yaml:"python"`
	Node   string `yaml:"node"`
	// MaxRounds bounds a model's tool-calling rounds per answer.
	MaxRounds int `yaml:"maxRounds"`
	// PauseTTL is how long a run waits for a consent or a frontend tool.
	PauseTTL Duration `yaml:"pauseTTL"`
}

// StoreConfig is where paused runs and plan state are kept. With none of
// its keys set, they are in the SQLite file agentgw.db of the data
// directory.
type StoreConfig struct {
	// Memory keeps them in this process's memory: a restart loses them
	// (for tests and throwaway runs).
	Memory bool `yaml:"memory"`
	// Path is a SQLite file replicas on one host share, instead of the
	// data directory's.
	Path string `yaml:"path"`
	// URL is a PostgreSQL database (postgres://…) replicas on any hosts
	// share. It may hold a password: it is logged redacted.
	URL string `yaml:"url"`
	// Postgres tunes the PostgreSQL store (store.url).
	Postgres PostgresStoreConfig `yaml:"postgres"`
}

// PostgresStoreConfig tunes the PostgreSQL store's connections.
type PostgresStoreConfig struct {
	// MaxConns bounds the replica's pool of connections (the store, the
	// hand-off queue, the scheduler and the knowledge index share it);
	// River's listener holds one more. It overrides the URL's
	// pool_max_conns; 0 means that, else 16, or the CPU count when larger.
	MaxConns int `yaml:"maxConns"`
}

// ContextsConfig bounds the conversation contexts (kept in the store).
// Zero values take the defaults of package conversation.
type ContextsConfig struct {
	// TTL is how long a context lives after its last change, and how long
	// a deleted id stays taken.
	TTL Duration `yaml:"ttl"`
	// MaxMessages and MaxBytes bound a context's stored messages; the
	// oldest are dropped. MaxBytes also bounds the JSON of the state and
	// the metadata together: a write over it is PAYLOAD_TOO_LARGE.
	MaxMessages int `yaml:"maxMessages"`
	MaxBytes    int `yaml:"maxBytes"`
	// MaxChanges is how many change log entries a context keeps.
	MaxChanges int `yaml:"maxChanges"`
	// MaxDepth bounds the nesting of a context's state and metadata (an
	// object of scalars is 1 deep); a deeper write is BAD_REQUEST. 0 means
	// 64; at most 1000.
	MaxDepth int `yaml:"maxDepth"`
}

// PlansConfig is how multi-step commands run.
type PlansConfig struct {
	// Parallel bounds the steps of one plan running at once.
	Parallel int `yaml:"parallel"`
}

// UpstreamConfig is the model platform.
type UpstreamConfig struct {
	URL              string   `yaml:"url"`
	Auth             string   `yaml:"auth"`
	KeyEnv           string   `yaml:"keyEnv"`
	DefaultModel     string   `yaml:"defaultModel"`
	FirstByteTimeout Duration `yaml:"firstByteTimeout"`
	IdleTimeout      Duration `yaml:"idleTimeout"`
	HTTP2Cleartext   bool     `yaml:"http2Cleartext"`
	// Retries, RetryBackoff and RetryMaxBackoff are the retry policy of a
	// call that failed before its answer began (llm.RetryPolicy).
	Retries         int      `yaml:"retries"`
	RetryBackoff    Duration `yaml:"retryBackoff"`
	RetryMaxBackoff Duration `yaml:"retryMaxBackoff"`
	// FallbackModels are tried in order when the model keeps failing, for
	// commands whose definition names none.
	FallbackModels []string `yaml:"fallbackModels"`
	// BuiltinPace is the wait between two tokens of the built-in model
	// (url builtin:echo); 0 streams them at once.
	BuiltinPace Duration `yaml:"builtinPace"`
	// builtinDefault is set when no URL was configured and the built-in
	// model was chosen for it.
	builtinDefault bool
	// builtinAt is the loopback URL the built-in model serves on, once
	// started (URL is then that URL too).
	builtinAt string
}

// ServerConfig is the HTTP side.
type ServerConfig struct {
	BodyLimit     int64    `yaml:"bodyLimit"`
	KeepAlive     Duration `yaml:"keepAlive"`
	Terminator    string   `yaml:"terminator"`
	AuthTokensEnv string   `yaml:"authTokensEnv"`
	// AdminTokensEnv names the environment variable of the admin tokens:
	// inbound tokens that also see and change every owner's objects.
	AdminTokensEnv string `yaml:"adminTokensEnv"`
	// Keys turns on the stored keys (agentgw keys, POST /keys) as inbound
	// credentials beside the tokens: each names a user or a team, the
	// agents and models it may use and whether it is an admin's. It needs
	// a database store (SQLite or PostgreSQL), and turns inbound auth on.
	Keys          bool     `yaml:"keys"`
	RateLimit     float64  `yaml:"rateLimit"`
	RateBurst     int      `yaml:"rateBurst"`
	ShutdownGrace Duration `yaml:"shutdownGrace"`
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout Duration `yaml:"readHeaderTimeout"`
	// BodyReadTimeout bounds reading a request's body (not the stream
	// that answers it).
	BodyReadTimeout Duration `yaml:"bodyReadTimeout"`
}

// StateConfig is the action state signing.
type StateConfig struct {
	SecretEnv string   `yaml:"secretEnv"`
	TTL       Duration `yaml:"ttl"`
}

// BudgetConfig is the prompt context budget.
type BudgetConfig struct {
	DefaultContextLength int            `yaml:"defaultContextLength"`
	ReplyReserve         int            `yaml:"replyReserve"`
	Models               map[string]int `yaml:"models"`
}

// LogConfig is the logging.
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// Duration is a time.Duration written as "15s" in YAML.
type Duration time.Duration

// MarshalYAML writes d as a Go duration string ("15s").
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration such as 30s or 2m", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// defaultConfig is the embedded configs/gateway.yaml.
func defaultConfig() (*Config, error) {
	data, err := configs.FS.ReadFile(configs.GatewayFile)
	if err != nil {
		return nil, fmt.Errorf("reading embedded gateway config: %w", err)
	}
	cfg := &Config{}
	if err := decodeConfig(data, cfg); err != nil {
		return nil, fmt.Errorf("embedded gateway config: %w", err)
	}
	return cfg, nil
}

// overlayFile reads a gateway config file over cfg: keys it sets win.
func overlayFile(cfg *Config, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading config: %w", err)
	}
	if err := unknownKeys(path, data); err != nil {
		return err // each at its file:line:col (check_cmd.go)
	}
	if err := decodeConfig(data, cfg); err != nil {
		if ke := kindErrors(path, err); ke != err {
			return ke // each at its file:line, in the operator's words
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	if pos := schedulePositions(path, data); len(pos) == len(cfg.Schedules) {
		cfg.schedulePos = pos
		for i, d := range cfg.Schedules {
			if d != nil {
				d.Pos = pos[i].item
			}
		}
	}
	// Relative paths in a config file are relative to the file.
	dir := filepath.Dir(path)
	for _, list := range [][]string{cfg.Agents, cfg.Tools.Files, cfg.Tools.WorkRoots} {
		for i := range list {
			relativeTo(dir, &list[i])
		}
	}
	for i := range cfg.Git.Repositories {
		relativeTo(dir, &cfg.Git.Repositories[i].Path)
	}
	relativeTo(dir, &cfg.Git.CacheDir)
	relativeTo(dir, &cfg.Store.Path)
	relativeTo(dir, &cfg.Data)
	return nil
}

// relativeTo joins the relative path *p to dir; an empty or absolute path
// stays as it is.
func relativeTo(dir string, p *string) {
	if *p != "" && !filepath.IsAbs(*p) {
		*p = filepath.Join(dir, *p)
	}
}

func decodeConfig(data []byte, cfg *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// envOverlay applies the AGENTGW_* environment variables over cfg.
func envOverlay(cfg *Config, getenv func(string) string) error {
	if v := getenv("AGENTGW_ADDR"); v != "" {
		cfg.Addr = v
	}
	if v := getenv("AGENTGW_AGENTS"); v != "" {
		cfg.Agents = filepath.SplitList(v)
	}
	if v := getenv("AGENTGW_UPSTREAM_URL"); v != "" {
		cfg.Upstream.URL = v
	}
	if v := getenv("AGENTGW_UPSTREAM_AUTH"); v != "" {
		cfg.Upstream.Auth = v
	}
	if v := getenv("AGENTGW_DEFAULT_MODEL"); v != "" {
		cfg.Upstream.DefaultModel = v
	}
	if v := getenv("AGENTGW_DEBUG_ADDR"); v != "" {
		cfg.DebugAddr = v
	}
	if v := getenv("AGENTGW_PUBLIC_URL"); v != "" {
		cfg.PublicURL = v
	}
	if v := getenv("AGENTGW_ALLOW_REQUEST_DEFINITIONS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("AGENTGW_ALLOW_REQUEST_DEFINITIONS: %q is not true or false", v)
		}
		cfg.AllowRequestDefinitions = b
	}
	for env, d := range map[string]*Duration{
		"AGENTGW_READ_HEADER_TIMEOUT": &cfg.Server.ReadHeaderTimeout,
		"AGENTGW_BODY_READ_TIMEOUT":   &cfg.Server.BodyReadTimeout,
	} {
		if v := getenv(env); v != "" {
			t, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("%s: %q is not a duration such as 30s or 2m", env, v)
			}
			*d = Duration(t)
		}
	}
	if v := getenv("AGENTGW_DATA"); v != "" {
		cfg.Data = v
	}
	if v := getenv("AGENTGW_STORE_MEMORY"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("AGENTGW_STORE_MEMORY: %q is not true or false", v)
		}
		cfg.Store.Memory = b
	}
	if v := getenv("AGENTGW_METRICS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("AGENTGW_METRICS: %q is not true or false", v)
		}
		cfg.Metrics.Enabled = b
	}
	if v := getenv("AGENTGW_KEYS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("AGENTGW_KEYS: %q is not true or false", v)
		}
		cfg.Server.Keys = b
	}
	if v := getenv("AGENTGW_STORE_URL"); v != "" {
		cfg.Store.URL = v
	}
	if v := getenv("AGENTGW_LOG_LEVEL"); v != "" {
		cfg.Log.Level = v
	}
	if v := getenv("AGENTGW_LOG_FORMAT"); v != "" {
		cfg.Log.Format = v
	}
	return nil
}

// validate checks values that would otherwise fail later and obscurely.
func (c *Config) validate() error {
	var errs []error
	for i := range c.KnowledgeBases {
		if err := c.KnowledgeBases[i].Check(); err != nil {
			errs = append(errs, fmt.Errorf("knowledgeBases[%d]: %w", i, err))
		}
	}
	for i, d := range c.Schedules {
		if d == nil {
			continue
		}
		if _, err := agentrun.FromDef(d, ""); err != nil {
			errs = append(errs, c.scheduleError(i, "", err))
		} else if d.Webhook != "" && !agentrun.Allowed(d.Webhook, c.Scheduler.WebhookAllow) {
			errs = append(errs, c.scheduleError(i, "webhook", fmt.Errorf("webhook %s is not under scheduler.webhookAllow", d.Webhook)))
		}
	}
	for _, l := range []struct {
		key     string
		entries []string
	}{{"scheduler.webhookAllow", c.Scheduler.WebhookAllow}, {"tools.httpAllow", c.Tools.HTTPAllow}} {
		if _, err := urlallow.Parse(l.entries); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", l.key, err))
		}
	}
	if err := c.ContentGuard.validate(); err != nil {
		errs = append(errs, err)
	}
	switch c.Upstream.Auth {
	case "", "forward", "key":
	default:
		errs = append(errs, fmt.Errorf("upstream.auth: %q must be forward or key", c.Upstream.Auth))
	}
	if r := c.Upstream.Retries; r < 0 || r > llm.MaxRetries {
		errs = append(errs, fmt.Errorf("upstream.retries: %d must be between 0 and %d", r, llm.MaxRetries))
	}
	if c.Upstream.BuiltinPace < 0 {
		errs = append(errs, errors.New("upstream.builtinPace must not be negative"))
	}
	if c.Upstream.RetryBackoff < 0 || c.Upstream.RetryMaxBackoff < 0 {
		errs = append(errs, errors.New("upstream.retryBackoff and upstream.retryMaxBackoff must not be negative"))
	}
	for i, m := range c.Upstream.FallbackModels {
		if strings.TrimSpace(m) == "" {
			errs = append(errs, fmt.Errorf("upstream.fallbackModels[%d] is empty", i))
		}
	}
	switch c.Server.Terminator {
	case "", "[DONE]", "[Done]":
	default:
		errs = append(errs, fmt.Errorf("server.terminator: %q must be [DONE] or [Done]", c.Server.Terminator))
	}
	if c.Server.BodyLimit < 0 {
		errs = append(errs, errors.New("server.bodyLimit must not be negative"))
	}
	if c.Server.ReadHeaderTimeout < 0 {
		errs = append(errs, errors.New("server.readHeaderTimeout must not be negative"))
	}
	if c.Server.BodyReadTimeout < 0 {
		errs = append(errs, errors.New("server.bodyReadTimeout must not be negative"))
	}
	if c.Scheduler.Heartbeat < 0 {
		errs = append(errs, errors.New("scheduler.heartbeat must not be negative"))
	}
	if c.Store.URL != "" {
		if !store.IsPostgresURL(c.Store.URL) {
			errs = append(errs, fmt.Errorf("store.url: %s must be a postgres:// URL", store.RedactURL(c.Store.URL)))
		}
		if c.Store.Path != "" {
			errs = append(errs, errors.New("store.url and store.path are both set: choose PostgreSQL or SQLite"))
		}
	}
	if c.Store.Postgres.MaxConns < 0 {
		errs = append(errs, errors.New("store.postgres.maxConns must not be negative"))
	}
	if c.Store.Memory && (c.Store.URL != "" || c.Store.Path != "") {
		errs = append(errs, errors.New("store.memory is set with store.url or store.path: choose one store"))
	}
	if c.Server.Keys && c.Store.Memory {
		errs = append(errs, errors.New("server.keys needs a database store (SQLite or PostgreSQL): the memory store keeps no keys"))
	}
	if err := c.Handoffs.check(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Usage.check(); err != nil {
		errs = append(errs, err)
	}
	switch strings.ToLower(c.Log.Format) {
	case "", "auto", "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log.format: %q must be auto, text or json", c.Log.Format))
	}
	return errors.Join(errs...)
}
