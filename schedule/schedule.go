package schedule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"time"
)

// MissedPolicy says what happens to runs that fell due while no replica
// was running (downtime), found when the scheduler looks again more than
// Config.Grace after they were due.
type MissedPolicy string

const (
	// MissedRunOnce runs once for all the missed runs, at once, then goes
	// on at the next time to come. The default: a nightly job whose night
	// fell in a maintenance window still runs.
	MissedRunOnce MissedPolicy = "runOnce"
	// MissedSkip records the missed runs as one SKIPPED run and goes on at
	// the next time to come.
	MissedSkip MissedPolicy = "skip"
)

// Status is the outcome of a run.
type Status string

// The statuses of a run. RUNNING is the only one not final.
const (
	StatusRunning Status = "RUNNING"
	StatusSuccess Status = "SUCCESS"
	StatusFailed  Status = "FAILED"
	StatusTimeout Status = "TIMEOUT"
	// StatusSkipped: the run was due but did not run: missed under
	// MissedSkip, or another run of the schedule was still in progress.
	// Error says which.
	StatusSkipped Status = "SKIPPED"
)

// Schedule is a schedule as the Store keeps it: its definition (ID to
// Missed) and its state (the rest).
type Schedule struct {
	// ID is the schedule's id: given by its creator or generated (a UUID);
	// a static schedule's is derived from its source and name (StaticID).
	ID string
	// Name is unique among all schedules.
	Name string
	// Spec says when it runs.
	Spec Spec
	// Enabled: a disabled schedule never runs on its own (RunNow still runs
	// it) and has no NextRun.
	Enabled bool
	// DisabledReason is why the gateway disabled the schedule (a Runner's
	// DisableError: the key it was made with is revoked); "" when it is
	// enabled, or was disabled by its owner. It is state: Update keeps it,
	// and clears it when the schedule is enabled.
	DisabledReason string
	// Target says what a run does, in JSON the caller defines (an agent
	// command with its context, or a tool with parameters, and where the
	// result goes): the store keeps it, the Runner reads it.
	Target json.RawMessage
	// Timeout bounds a run; 0 is the scheduler's Config.DefaultTimeout.
	Timeout time.Duration
	// Missed is the policy for runs missed during downtime; empty is
	// MissedRunOnce.
	Missed MissedPolicy

	// Owner is who the schedule belongs to (an access owner: the identity
	// of the caller that created it over the API; access.Operator for a
	// static schedule, set by Sync). Set by Create's caller; Update keeps
	// it as stored.
	Owner string
	// Source is where a static schedule is defined (the config, an agent
	// file: the caller's name for it, passed to Sync); empty for a
	// schedule created at run time.
	Source    string
	CreatedAt time.Time
	UpdatedAt time.Time
	// LastRun is when the last run started (zero: never).
	LastRun time.Time
	// NextRun is when it runs next; zero when it will not (disabled, or a
	// once schedule that ran or whose time passed).
	NextRun time.Time
	// RunCount counts the runs started, scheduled and RunNow; SKIPPED runs
	// are not counted.
	RunCount int64
	// Runs are the newest runs, newest first, at most the store's
	// Options.KeepRuns.
	Runs []Run
}

// Run is one run of a schedule.
type Run struct {
	// ID is the run's id. A scheduled run's is RunID(schedule, due), the
	// same on every replica: a Runner that hands the work on can use it as
	// an idempotency key.
	ID         string
	ScheduleID string
	// Due is the time the run was scheduled for (for a run late after
	// downtime, the first it stands for); for a RunNow run, when it was
	// asked for.
	Due time.Time
	// Manual: started by RunNow.
	Manual bool
	Status Status
	// Started and Finished bound the run (Finished zero while RUNNING).
	Started  time.Time
	Finished time.Time
	// Result is the Runner's result.
	Result json.RawMessage
	// Error is the Runner's error, or why the run timed out, was skipped
	// or was interrupted.
	Error string
	// Replica names the scheduler that ran it (Config.Replica).
	Replica string
}

// idPattern is what an id or a name may be made of: something that fits
// in a URL path segment and a command line unquoted; validID bounds its
// length. (A counted repetition, {0,127}, compiles into a program of 128
// copies that every process would hold from its start: 0.1 MB.)
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)

// maxIDLen is the longest an id or a name may be, in bytes.
const maxIDLen = 128

// validID reports whether s may be an id or a name.
func validID(s string) bool { return len(s) <= maxIDLen && idPattern.MatchString(s) }

// validate checks sc's definition, compacts its Target and fills in its
// defaults (Missed). An empty ID passes: Create generates one.
func (sc *Schedule) validate() error {
	if sc.Name == "" {
		return &ValidationError{Field: "name", Offset: -1, Msg: "a schedule needs a name"}
	}
	if !validID(sc.Name) {
		return &ValidationError{Field: "name", Value: sc.Name, Offset: -1,
			Msg: fmt.Sprintf("%q: a name is up to 128 letters, digits, '.', '_', ':' and '-', starting with a letter or digit", sc.Name)}
	}
	if sc.ID != "" && !validID(sc.ID) {
		return &ValidationError{Field: "id", Value: sc.ID, Offset: -1,
			Msg: fmt.Sprintf("%q: an id is up to 128 letters, digits, '.', '_', ':' and '-', starting with a letter or digit", sc.ID)}
	}
	if err := sc.Spec.Validate(); err != nil {
		return err
	}
	if len(sc.Target) > 0 {
		if !json.Valid(sc.Target) {
			return &ValidationError{Field: "target", Offset: -1, Msg: "the target is not JSON"}
		}
		var b bytes.Buffer
		_ = json.Compact(&b, sc.Target) // valid: cannot fail
		sc.Target = b.Bytes()
	}
	if sc.Timeout < 0 {
		return &ValidationError{Field: "timeout", Value: sc.Timeout.String(), Offset: -1, Msg: "the timeout is negative"}
	}
	switch sc.Missed {
	case "":
		sc.Missed = MissedRunOnce
	case MissedRunOnce, MissedSkip:
	default:
		return &ValidationError{Field: "missed", Value: string(sc.Missed), Offset: -1,
			Msg: fmt.Sprintf("%q is not a missed-run policy: %s (the default) or %s", sc.Missed, MissedRunOnce, MissedSkip)}
	}
	return nil
}

// Validate checks sc's definition (name, id, spec, target, timeout, missed
// policy) as Create and Sync do. Its errors are *ValidationError.
func (sc Schedule) Validate() error { return sc.validate() }

// definition is the part of a schedule its creator says, in a form two
// copies compare by (Sync's hash of a static schedule's definition).
type definition struct {
	Name    string          `json:"name"`
	Spec    SpecText        `json:"spec"`
	Enabled bool            `json:"enabled"`
	Target  json.RawMessage `json:"target,omitempty"`
	Timeout time.Duration   `json:"timeout"`
	Missed  MissedPolicy    `json:"missed"`
}

func (sc Schedule) definition() definition {
	return definition{Name: sc.Name, Spec: sc.Spec.Text(), Enabled: sc.Enabled, Target: sc.Target,
		Timeout: sc.Timeout, Missed: sc.Missed}
}

// scheduleJSON is Schedule's JSON: the spec's fields inline, as files
// write them, durations as Go durations, absent times left out.
type scheduleJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	SpecText
	Enabled  bool            `json:"enabled"`
	Disabled string          `json:"disabledReason,omitempty"`
	Target   json.RawMessage `json:"target,omitempty"`
	Timeout  string          `json:"timeout,omitempty"`
	Missed   MissedPolicy    `json:"missed,omitempty"`
	Owner    string          `json:"owner,omitempty"`
	Source   string          `json:"source,omitempty"`
	Created  time.Time       `json:"createdAt,omitzero"`
	Updated  time.Time       `json:"updatedAt,omitzero"`
	LastRun  time.Time       `json:"lastRun,omitzero"`
	NextRun  *time.Time      `json:"nextRun"`
	RunCount int64           `json:"runCount"`
	Runs     []Run           `json:"runs,omitempty"`
}

// MarshalJSON writes sc as the API shows it: {id, name, once|every|cron,
// timezone, enabled, disabledReason (when the gateway disabled it), target, timeout, missed, owner, source, createdAt,
// updatedAt, lastRun, nextRun (null when none), runCount, runs}.
func (sc Schedule) MarshalJSON() ([]byte, error) {
	j := scheduleJSON{ID: sc.ID, Name: sc.Name, SpecText: sc.Spec.Text(), Enabled: sc.Enabled, Disabled: sc.DisabledReason, Target: sc.Target,
		Missed: sc.Missed, Owner: sc.Owner, Source: sc.Source, Created: sc.CreatedAt, Updated: sc.UpdatedAt, LastRun: sc.LastRun,
		RunCount: sc.RunCount, Runs: sc.Runs}
	if sc.Timeout > 0 {
		j.Timeout = sc.Timeout.String()
	}
	if !sc.NextRun.IsZero() {
		j.NextRun = &sc.NextRun
	}
	return json.Marshal(j)
}

// runJSON is Run's JSON.
type runJSON struct {
	ID         string          `json:"id"`
	ScheduleID string          `json:"scheduleId"`
	Due        time.Time       `json:"due,omitzero"`
	Manual     bool            `json:"manual,omitempty"`
	Status     Status          `json:"status"`
	Started    time.Time       `json:"start,omitzero"`
	Finished   time.Time       `json:"end,omitzero"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	Replica    string          `json:"replica,omitempty"`
}

// MarshalJSON writes r as the API shows it: {id, scheduleId, due, manual,
// status, start, end, result, error, replica}.
func (r Run) MarshalJSON() ([]byte, error) {
	return json.Marshal(runJSON(r))
}
