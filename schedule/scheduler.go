package schedule

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Runner runs one run of schedule sc, due at due (for a RunNow run, when
// it was asked for), and returns its result: JSON the caller defines (the
// agent's output, the tool's result). An error fails the run; a result
// returned with it is kept too. It must stop when ctx is done: the
// scheduler cancels it after the schedule's timeout (a TIMEOUT run) and on
// a hard Stop. RunFromContext(ctx) gives the run's record.
type Runner func(ctx context.Context, sc Schedule, due time.Time) (result json.RawMessage, err error)

// Config configures a Scheduler. Runner is required; zero values elsewhere
// are the defaults.
type Config struct {
	// Runner runs the runs.
	Runner Runner
	// Tick is the longest the scheduler waits between two looks for due
	// runs (default DefaultTick, 5 s, and never more than Heartbeat): what
	// it waits for a schedule created or changed on another replica, and
	// for a run whose replica died to be recorded interrupted. Between
	// looks it also wakes at the next run it knows of, so runs start on
	// time whatever Tick is, and at once when this process changes a
	// schedule.
	Tick time.Duration
	// Now is the clock (default time.Now). A test that sets it calls
	// RunDue itself rather than Start, whose waits are real time.
	Now func() time.Time
	// DefaultTimeout bounds the runs of a schedule without a Timeout
	// (default 10 minutes).
	DefaultTimeout time.Duration
	// Grace is how late a run may start and still not be missed (default
	// 1 minute): a run found later than that (no replica was running when
	// it was due) follows its schedule's missed-run policy.
	Grace time.Duration
	// MaxRuns bounds the scheduled runs in progress in this process at once
	// (default 4); due runs beyond it are left to other replicas or to the
	// next look. RunNow runs are not counted.
	MaxRuns int
	// Replica names this scheduler in the runs it records (default
	// host:pid).
	Replica string
	// OnFinish, when set, is called with each run's outcome as recorded
	// (SKIPPED runs included), after it is stored.
	OnFinish func(sc Schedule, run Run)
	// Logger logs runs and failures (default discards).
	Logger *slog.Logger
	// Heartbeat is how often a run renews its lease while its replica is
	// alive (default DefaultHeartbeat, 5 s). A run whose lease has not
	// been renewed for MissedHeartbeats heartbeats is recorded FAILED,
	// interrupted, by any replica (or this one, restarted) at its next
	// look for due runs, whatever the run's timeout.
	Heartbeat time.Duration
}

// DefaultHeartbeat is Config.Heartbeat when zero, and MissedHeartbeats
// the heartbeats a run's lease lasts: a run whose replica died is recorded
// interrupted about 15 s later.
const (
	DefaultHeartbeat = 5 * time.Second
	MissedHeartbeats = 3
)

// DefaultTick is Config.Tick when zero: a schedule made on another
// replica, or a run whose replica died, is seen within 5 s; a schedule
// made on this one at once.
const DefaultTick = 5 * time.Second

const (
	defaultRunTimeout = 10 * time.Minute
	defaultGrace      = time.Minute
	defaultMaxRuns    = 4
	// dueBatch bounds the due schedules read in one look.
	dueBatch = 100
	// minWait is the shortest wait between two looks.
	minWait = 10 * time.Millisecond
	// abandonAfter is how long a Runner may go on after its context is
	// done before its run is recorded without waiting for it.
	abandonAfter = 5 * time.Second
	// hardStopWait bounds how long a Stop whose context is done waits for
	// the cancelled runs to be recorded.
	hardStopWait = 10 * time.Second
	// recordFor bounds how long the outcome of a run is tried again while
	// the database does not answer (a brief outage, a restart).
	recordFor = 15 * time.Minute
)

// Scheduler runs the schedules of a Store on one replica: it looks for
// due runs, claims each (see Store's claim: exactly one replica of all
// gets it), and runs it through Config.Runner with the schedule's
// timeout, recording the outcome. A Scheduler is started once; Stop ends
// it.
type Scheduler struct {
	st  *Store
	cfg Config
	log *slog.Logger
	// sem holds a token per scheduled run in progress.
	sem chan struct{}
	// wake is signalled when a run ends, to look again.
	wake chan struct{}
	// runCtx is the runs' parent; cancelRuns ends them (hard Stop).
	runCtx     context.Context
	cancelRuns context.CancelFunc
	wg         sync.WaitGroup

	// looks counts the loop's looks for due runs (for the tests of its
	// idle cost).
	looks atomic.Int64

	mu       sync.Mutex
	started  bool
	stopped  bool
	stopLoop context.CancelFunc
	loopDone chan struct{}
	inflight map[string]*flight
}

// flight is a run in progress in this process.
type flight struct {
	done chan struct{}
	run  Run // the outcome, once done is closed
}

// New returns a scheduler of the schedules of st; Start starts it.
func New(st *Store, cfg Config) (*Scheduler, error) {
	if st == nil {
		return nil, errors.New("schedule: New needs a Store")
	}
	if cfg.Runner == nil {
		return nil, errors.New("schedule: Config.Runner is required")
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = defaultRunTimeout
	}
	if cfg.Grace <= 0 {
		cfg.Grace = defaultGrace
	}
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = defaultMaxRuns
	}
	if cfg.Replica == "" {
		host, _ := os.Hostname()
		cfg.Replica = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	runCtx, cancel := context.WithCancel(context.Background())
	return &Scheduler{
		st: st, cfg: cfg, log: cfg.Logger,
		sem: make(chan struct{}, cfg.MaxRuns), wake: make(chan struct{}, 1),
		runCtx: runCtx, cancelRuns: cancel,
		inflight: map[string]*flight{},
	}, nil
}

// Start starts looking for due runs, in the background, until Stop. Its
// ctx bounds starting only.
func (s *Scheduler) Start(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopped:
		return ErrStopped
	case s.started:
		return errors.New("schedule: the scheduler is already started")
	}
	s.started = true
	ctx, cancel := context.WithCancel(context.Background())
	s.stopLoop, s.loopDone = cancel, make(chan struct{})
	go s.loop(ctx)
	return nil
}

// loop looks for due runs until ctx is done: at the next run it knows of,
// when this process changed a schedule (Store.changed) or a run ended,
// and otherwise at most Tick (and a heartbeat) after the last look, for
// what other replicas changed and for their interrupted runs. An idle
// look costs three indexed reads that find nothing (see RunDue).
func (s *Scheduler) loop(ctx context.Context) {
	defer close(s.loopDone)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-s.wake:
		case <-s.st.changed:
		}
		s.looks.Add(1)
		wait := min(s.cfg.Tick, s.cfg.Heartbeat)
		if _, err := s.RunDue(ctx); err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrStopped) {
				return
			}
			s.log.Warn("schedule: looking for due runs", "err", err)
		} else if next, ok, err := s.st.nextDue(ctx); err == nil && ok && len(s.sem) < cap(s.sem) {
			wait = min(wait, max(next.Sub(s.cfg.Now()), minWait))
		}
		timer.Reset(wait)
	}
}

// enter counts a caller in the scheduler's work (Stop waits for it), or
// fails with ErrStopped.
func (s *Scheduler) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	s.wg.Add(1)
	return nil
}

// RunDue looks once for due runs and claims those it can (up to MaxRuns
// in progress): it returns the runs it claimed, RUNNING ones started in
// the background (Wait waits for one) and SKIPPED ones as recorded. It
// first records as interrupted the runs whose replica died. Start's loop
// calls it; a test with a fake clock calls it itself.
func (s *Scheduler) RunDue(ctx context.Context) ([]Run, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.wg.Done()
	now := s.cfg.Now()
	if n, err := s.st.sweep(ctx, now, s.inProgress()); err != nil {
		s.log.Warn("schedule: recording interrupted runs", "err", err)
	} else if n > 0 {
		s.log.Warn("schedule: runs interrupted: their replica stopped before they finished", "runs", n)
	}
	due, err := s.st.due(ctx, now, dueBatch)
	if err != nil {
		return nil, err
	}
	var out []Run
	var errs []error
	for _, sc := range due {
		select {
		case s.sem <- struct{}{}:
		default:
			return out, errors.Join(errs...) // busy: the rest wait
		}
		run, ok, err := s.st.claim(ctx, claim{sc: sc, due: sc.NextRun, now: now, grace: s.cfg.Grace,
			lease: s.lease(sc), replica: s.cfg.Replica, mine: s.inProgress()})
		if err != nil || !ok || run.Status != StatusRunning {
			<-s.sem
		}
		switch {
		case err != nil:
			errs = append(errs, err)
		case !ok: // another replica took it, or it changed
		case run.Status == StatusSkipped:
			s.log.Info("schedule: run skipped", "schedule", sc.Name, "due", run.Due, "why", run.Error)
			s.finished(sc, run)
			out = append(out, run)
		default:
			out = append(out, run)
			s.launch(sc, run, func() { <-s.sem })
		}
	}
	return out, errors.Join(errs...)
}

// lease is how long a run may stay RUNNING without renewing its lease
// before it is taken as interrupted: MissedHeartbeats heartbeats.
func (s *Scheduler) lease(Schedule) time.Duration {
	return MissedHeartbeats * s.cfg.Heartbeat
}

// inProgress lists the runs in progress in this process: alive, whatever
// their lease says.
func (s *Scheduler) inProgress() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.inflight))
	for id := range s.inflight {
		ids = append(ids, id)
	}
	return ids
}

// renew renews the lease of run id every heartbeat until stop is closed.
func (s *Scheduler) renew(id string, stop <-chan struct{}) {
	t := time.NewTicker(s.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Heartbeat)
		err := s.st.renew(ctx, id, s.cfg.Now().Add(s.lease(Schedule{})))
		cancel()
		if err != nil {
			s.log.Warn("schedule: renewing a run's lease", "run", id, "err", err)
		}
	}
}

// record writes run's outcome (and disables its schedule, with disable
// as the reason, when disable is set), trying again with backoff (up to a
// heartbeat) while the database does not answer, for up to recordFor.
func (s *Scheduler) record(run Run, disable string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), recordFor)
	defer cancel()
	wait := 50 * time.Millisecond
	for try := 1; ; try++ {
		ok, err := s.st.finish(ctx, run, disable)
		if err == nil || ctx.Err() != nil {
			return ok, err
		}
		s.log.Warn("schedule: recording a run's outcome failed; trying again", "run", run.ID, "try", try, "in", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, err
		case <-t.C:
		}
		wait = min(2*wait, s.cfg.Heartbeat)
	}
}

func (s *Scheduler) timeout(sc Schedule) time.Duration {
	if sc.Timeout > 0 {
		return sc.Timeout
	}
	return s.cfg.DefaultTimeout
}

// RunNow starts a run of schedule id at once, in the background, and
// returns its record (RUNNING); Wait waits for its outcome. It counts in
// the schedule's RunCount and LastRun and leaves NextRun as it is. It runs
// a disabled schedule too: disabling stops the clock, not the operator. A
// run of the schedule in progress (on any replica) is ErrRunning.
func (s *Scheduler) RunNow(ctx context.Context, id string) (Run, error) {
	if err := s.enter(); err != nil {
		return Run{}, err
	}
	defer s.wg.Done()
	now := s.cfg.Now()
	sc, run, err := s.st.startManual(ctx, id, now, s.lease, s.cfg.Replica, s.inProgress()...)
	if err != nil {
		return Run{}, err
	}
	s.launch(sc, run, func() {})
	return run, nil
}

// launch runs run of sc in the background; release is called when it is
// recorded. The caller is counted in s.wg.
func (s *Scheduler) launch(sc Schedule, run Run, release func()) {
	f := &flight{done: make(chan struct{})}
	s.mu.Lock()
	s.inflight[run.ID] = f
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		out := s.execute(sc, run)
		release()
		f.run = out
		s.mu.Lock()
		delete(s.inflight, run.ID)
		s.mu.Unlock()
		close(f.done)
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}()
}

type runKey struct{}

// RunFromContext is the run a Runner's context is for.
func RunFromContext(ctx context.Context) (Run, bool) {
	r, ok := ctx.Value(runKey{}).(Run)
	return r, ok
}

type outcome struct {
	result json.RawMessage
	err    error
}

// execute runs run of sc through the Runner with its timeout, records the
// outcome and returns it.
func (s *Scheduler) execute(sc Schedule, run Run) Run {
	timeout := s.timeout(sc)
	ctx, cancel := context.WithTimeout(context.WithValue(s.runCtx, runKey{}, run), timeout)
	defer cancel()
	s.log.Debug("schedule: run started", "schedule", sc.Name, "run", run.ID, "due", run.Due, "manual", run.Manual)
	stopRenew, renewed := make(chan struct{}), make(chan struct{})
	go func(id string) {
		defer close(renewed)
		s.renew(id, stopRenew)
	}(run.ID)
	ch := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- outcome{err: fmt.Errorf("the runner panicked: %v", r)}
			}
		}()
		res, err := s.cfg.Runner(ctx, sc, run.Due)
		ch <- outcome{res, err}
	}()
	var o outcome
	abandoned := false
	select {
	case o = <-ch:
	case <-ctx.Done():
		t := time.NewTimer(abandonAfter)
		select {
		case o = <-ch:
		case <-t.C:
			abandoned = true
		}
		t.Stop()
	}
	run.Finished = s.cfg.Now()
	run.Result = jsonResult(o.result)
	run.Status, run.Error = s.status(ctx, o, abandoned, timeout)
	// A Runner that says the schedule may not run any more (DisableError)
	// disables it with its reason, as its failed run is recorded.
	disable := ""
	var de *DisableError
	if run.Status == StatusFailed && errors.As(o.err, &de) {
		disable = cmp.Or(de.Reason, "disabled by its runner")
	}
	ok, err := s.record(run, disable)
	close(stopRenew)
	<-renewed
	if err != nil {
		s.log.Error("schedule: recording a run's outcome", "schedule", sc.Name, "run", run.ID, "err", err)
	} else if ok && disable != "" {
		s.log.Warn("schedule: disabled by its run", "schedule", sc.Name, "run", run.ID, "why", disable)
	} else if !ok {
		s.log.Warn("schedule: a run's outcome was not recorded: its schedule was deleted",
			"schedule", sc.Name, "run", run.ID)
	}
	level := slog.LevelInfo
	if run.Status != StatusSuccess {
		level = slog.LevelWarn
	}
	s.log.Log(context.Background(), level, "schedule: run finished", "schedule", sc.Name, "run", run.ID,
		"status", run.Status, "err", run.Error, "took", run.Finished.Sub(run.Started))
	s.finished(sc, run)
	return run
}

// status is the status and error of a run that ended with o; ctx is its
// context, abandoned says the Runner did not return after it was done.
func (s *Scheduler) status(ctx context.Context, o outcome, abandoned bool, timeout time.Duration) (Status, string) {
	if abandoned || (o.err != nil && ctx.Err() != nil) {
		msg := ""
		if o.err != nil {
			msg = ": " + o.err.Error()
		}
		if abandoned {
			msg = fmt.Sprintf(" (the runner did not stop within %s of being cancelled)", abandonAfter)
		}
		if s.runCtx.Err() != nil {
			return StatusFailed, "interrupted: the scheduler stopped" + msg
		}
		return StatusTimeout, fmt.Sprintf("timed out after %s%s", timeout, msg)
	}
	if o.err != nil {
		return StatusFailed, o.err.Error()
	}
	return StatusSuccess, ""
}

// jsonResult is r, or r as a JSON string when it is not JSON.
func jsonResult(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || json.Valid(r) {
		return r
	}
	b, _ := json.Marshal(string(r))
	return b
}

func (s *Scheduler) finished(sc Schedule, run Run) {
	if s.cfg.OnFinish != nil {
		s.cfg.OnFinish(sc, run)
	}
}

// Wait waits for run id, started by this scheduler, to finish and returns
// its outcome. For a run not in progress here (finished, or on another
// replica) it returns the run's record as it is.
func (s *Scheduler) Wait(ctx context.Context, id string) (Run, error) {
	s.mu.Lock()
	f := s.inflight[id]
	s.mu.Unlock()
	if f == nil {
		return s.st.Run(ctx, id)
	}
	select {
	case <-f.done:
		return f.run, nil
	case <-ctx.Done():
		return Run{}, fmt.Errorf("schedule: waiting for run %s: %w", id, ctx.Err())
	}
}

// Stop stops looking for due runs and waits for the runs in progress to
// finish and be recorded. When ctx is done first, it cancels them and
// waits a little more: each is recorded FAILED, interrupted. Afterwards
// RunDue and RunNow return ErrStopped. Stopping twice is a no-op.
func (s *Scheduler) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	stopLoop, loopDone := s.stopLoop, s.loopDone
	s.mu.Unlock()
	defer s.cancelRuns()
	if stopLoop != nil {
		stopLoop()
		<-loopDone
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.cancelRuns()
	t := time.NewTimer(hardStopWait)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return fmt.Errorf("schedule: stopping: runs still not recorded %s after they were cancelled", hardStopWait)
	}
}
