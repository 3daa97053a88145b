// Package schedule runs things on a schedule — an agent command every
// night, a report every week, a reminder in an hour — exactly once per
// scheduled time however many replicas of the gateway run, and across
// restarts. It knows what a run does only as an opaque JSON Target that a
// caller-given Runner reads.
//
// # Specs
//
// A Spec is one of:
//
//   - once: an RFC 3339 time (2026-05-01T09:00:00+02:00). Once it has run,
//     or its time passed while the schedule was disabled, the schedule is
//     done: NextRun is zero.
//   - every: a Go duration (90s, 1h30m), at least MinEvery (1s). Runs keep
//     the phase of the first (first + k·every, whole seconds), including
//     after downtime.
//   - cron: five fields (minute hour day-of-month month day-of-week, with
//     ranges, lists, steps and JAN/MON names; a day-of-month and a
//     day-of-week both restricted match either, as in cron) or a descriptor
//     (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly),
//     evaluated in Timezone (IANA; empty is UTC). Seconds, @every and
//     TZ= prefixes are refused with a message that says what to write
//     instead.
//
// Cron expressions are parsed and evaluated by github.com/robfig/cron/v3
// (v3.0.1), the parser most Go schedulers use, small and without
// dependencies; this package uses only its parser and its SpecSchedule.Next,
// not its runner. Daylight saving time is handled the way it does: a wall
// time that a spring-forward skips does not occur that day (02:30 on the
// night clocks go from 02:00 to 03:00 in most of Europe and North
// America), and a wall time that a fall-back repeats occurs twice, once at
// each offset (01:30 in New York on the first Sunday of November). Nightly
// jobs that must run exactly once a day should avoid 01:00–03:00 local
// time, or use UTC. The zone database is embedded (time/tzdata), so zones
// resolve in a static binary on an image without one.
//
// Parse and Validate return *ValidationError: the field (once, every,
// cron, timezone; name, id, target, timeout, missed for a Schedule), the
// value, and for a cron expression the byte offset of the field that is
// wrong, for lint positions and 400 answers.
//
// # Storage
//
// A Store keeps schedules and their runs in the gateway's database —
// SQLite (sqlitestore.SQLite's DB) or PostgreSQL (pgstore.Postgres's Pool) — in
// tables of its own (schedules, schedule_runs) created by ordered, in-code
// migrations recorded in schedule_migrations, under the database's write
// lock (SQLite) or an advisory lock (Postgres), so that replicas starting
// at once migrate once. All state is in the database: a restart, or
// another replica, carries on from the same next run and run count.
//
// Schedules are made at run time (Create, Update, Delete) or defined in
// files (the config, agent files) and synced with Sync, which makes a
// source's schedules match its definitions, serialized with other Syncs so
// that replicas starting at once create each once. A static schedule may
// be enabled and disabled at run time (the change lasts until its
// definition changes); other changes and deletion are ErrStatic.
//
// Every schedule has an Owner, an opaque identity (package
// internal/access): the caller that made it at run time, access.Operator
// for a static one (and for the schedules stored before owners existed).
// ListOwned lists one owner's; CreateLimited bounds how many run-time
// schedules an owner has (ErrQuota), counting and inserting in one
// transaction serialized per owner. Who may see which is the caller's
// business (schedule/agentrun). Spec.Interval is the shortest time between
// two runs of a spec, for a caller that bounds how often schedules run.
//
// # Running
//
// A Scheduler on each replica looks for due runs (at the next run it
// knows of, and at least every Config.Tick) and claims each with a
// compare-and-swap on the schedule's next run:
//
//	UPDATE schedules SET next_run = <following> WHERE id = ? AND next_run = <due> AND enabled = 1
//
// in a transaction that also records the run and counts it. Of all the
// replicas that see the run due, only the one whose update changes the row
// runs it; the others find next_run moved and go on. The run then goes
// through the Runner with the schedule's timeout (Config.DefaultTimeout,
// 10 minutes, when it has none), and its outcome — SUCCESS, FAILED,
// TIMEOUT, with the Runner's result and error — is stored with the run.
// The store keeps the newest runs of each schedule (Options.KeepRuns, 20).
//
//   - Disabled: a disabled schedule has no next run and is never claimed;
//     enabled again, it runs next at its spec's first time from then.
//   - Once: the claim of a once schedule's one time (run or SKIPPED) also
//     disables it, in the same transaction: it is done.
//   - Missed runs: a run found more than Config.Grace (1 minute) after it
//     was due was missed (no replica was running). Under MissedRunOnce,
//     the default, it runs once for all the runs missed; under MissedSkip
//     one SKIPPED run records them. Either way the schedule goes on at the
//     next time to come, never with a burst of catch-up runs. runOnce is
//     the default because a nightly job whose night fell in a maintenance
//     window is expected to run when the gateway is back.
//   - No overlap: a run due while another run of its schedule is in
//     progress (on any replica) is recorded SKIPPED, and RunNow answers
//     ErrRunning.
//   - RunNow runs a schedule at once, disabled or not, without moving its
//     next run; it counts in RunCount and LastRun.
//   - Interrupted runs: a run stays RUNNING under a short lease that it
//     renews every Config.Heartbeat (5 s) while its replica is alive; the
//     lease lasts MissedHeartbeats (3) heartbeats, whatever the run's
//     timeout. When its replica dies mid-run, the lease passes and any
//     replica (or the one restarted), at its next look for due runs,
//     records it FAILED, interrupted: about 15 s after the death by
//     default. It is not run again, and the schedule's next run proceeds
//     as usual. A replica never takes its own runs in progress for
//     interrupted.
//   - Outcomes are not lost to an outage: a run's outcome that the
//     database does not take is written again, with backoff up to a
//     heartbeat, for up to 15 minutes. Written after a sweep recorded the
//     run interrupted (its heartbeats did not reach the database either),
//     it replaces that record.
//   - Stop stops looking, waits for the runs in progress and, when its
//     context ends first, cancels them (recorded FAILED, interrupted).
//
// The guarantee is therefore exactly one claim per scheduled time, and at
// most one execution of it: a run cut off by a crash is recorded, not
// retried.
//
// # Why not River
//
// River (github.com/riverqueue/river), which the hand-off queue uses,
// has periodic jobs and could run each claimed run as a durable job, so
// that a run cut off by a crash would be retried by another replica. It
// is not used here, for three reasons. Exactly-once claiming does not
// need it: the compare-and-swap above is one statement on a row the
// package owns, on both databases. Its periodic jobs keep their next run
// times in the elected leader's memory and start over when the leader
// changes (the durable variant is River Pro's: the open-source pilot's
// hooks for it do nothing), and they hold none of the per-schedule state
// (next run, run count, last outcomes, enabled) that the API must show
// and a restart must keep, so that state would be kept here anyway. And retrying a cut-off run turns at-most-once into
// at-least-once: a run whose agent already posted its review to a
// conversation, a hand-off or a webhook before the crash would post it
// again. For a scheduled job the next scheduled time is the retry, and
// the interrupted run is visible in its record. A Runner that wants
// durable delivery of its result can hand it to the hand-off queue with
// the run's ID (RunID, the same on every replica) as the idempotency
// key.
//
// Times are stored as unix nanoseconds and returned in UTC. Replicas
// compare times from their own clocks, which should be synchronized (NTP).
package schedule
