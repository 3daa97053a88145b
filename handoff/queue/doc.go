// Package queue delivers hand-off messages durably over the gateway's
// database: at least once, with idempotent processing, in priority order,
// across restarts and replicas. It knows a message only by its Envelope
// (id, task, priority, expiry, retry and escalation settings, recipient)
// and hands the opaque payload to a Handler.
//
// # The engine: River
//
// Jobs are River's (github.com/riverqueue/river), a maintained job queue
// for Go with a PostgreSQL driver (riverpgxv5, over the store's pgx pool)
// and a SQLite driver (riversqlite, over database/sql, run here on the
// store's pure-Go modernc.org/sqlite, so CGO_ENABLED=0 builds keep
// working). River brings what a queue must not get wrong and a gateway
// should not write: transactional inserts (a message's record and its job
// commit together), fetching that hands a job to exactly one worker of all
// replicas (FOR UPDATE SKIP LOCKED on Postgres, the write lock on SQLite),
// priorities, scheduled retries, a leader-elected rescuer that takes back
// jobs whose process died, LISTEN/NOTIFY wake-ups on Postgres, cleanup of
// finished jobs, and its own versioned migrations. Its cost: six modules
// of River and four small JSON ones (tidwall), no cgo. Its SQLite driver is
// marked early by its authors; the tests here run every behaviour over
// both databases.
//
// # Records
//
// River's job rows carry only the message id. What a caller asks about —
// status, result, error, attempts, times, the escalation chain — is in a
// table of the queue's own, handoff_messages, migrated in code (see
// migration) under the same lock as River's steps: River's job rows are
// deleted a day after they finish and their states (available, retryable,
// discarded, …) are not the message's (QUEUED … DEAD), and listing a task
// by a JSON field of the jobs is not supported on SQLite. Get and Task
// read it.
//
// # Guarantees
//
//   - Idempotent: Enqueue inserts the record and the job in one
//     transaction, only when the id is new (ON CONFLICT DO NOTHING); a
//     repeated id returns the record as it is.
//   - Run once: before a handler runs, a transaction that holds the
//     message's row checks that it is not final and takes it (RUNNING, a
//     run token, a lease of MissedHeartbeats heartbeats, the River job
//     that runs it). A message COMPLETED is never run again, whatever
//     River does with its job; a run that lost its lease cannot overwrite
//     another's outcome. What remains is at-least-once's usual window: a
//     handler that finished but whose process died before its outcome was
//     written runs again (as an interrupted run) once its lease has
//     passed.
//   - Outcomes are not lost to an outage: a run's outcome that the
//     database does not take (unreachable, restarting) is written again,
//     with backoff up to a heartbeat, for up to 15 minutes, while the run
//     keeps its lease; written late, it is still the run's if no other run
//     started meanwhile. A finished run is recorded once and does not run
//     again.
//   - Expiry is checked when a message would start, first run or retry:
//     one past its ExpiresAt before its first run is EXPIRED and never
//     run; one that expired waiting for a retry has failed: it is
//     escalated or falls back as when its retries are spent, else
//     EXPIRED, its Error saying how many runs it had and the last failure.
//   - A failed run (error, panic, timeout) is retried after Backoff, up to
//     RetryCount times; then the message is escalated (Config.Escalate
//     gives the new message: FAILED, EscalatedTo), else its fallback runs
//     (Config.Fallback: FAILED, FallbackRan), else it is DEAD. What
//     escalate_to and fallback_action mean is the caller's to say.
//   - A handler may refuse a message before running anything (a
//     *Refusal: the hub's when the stored key that sent it was revoked):
//     it is DEAD at once with the refusal's Code, neither retried nor
//     escalated nor fallen back to. A handler that could not tell whether
//     the message may run (Unavailable: the keys' store did not answer)
//     has it QUEUED again, not counted as a failure, and River runs its job
//     again as when the queue's own database fails (refuse.go).
//   - Bounded: every message has an Owner and a Hops (its place in the
//     chain of messages caused by one another). One queued past
//     Config.MaxHops, or into a task whose owner already has
//     Config.MaxMessagesPerTask messages there, is kept DEAD with Code
//     CodeLimit (HANDOFF_LIMIT), logged at WARN, and never runs. The count
//     is of stored rows, made under a lock of the task (a transaction
//     advisory lock on Postgres, the write lock on SQLite): the bound
//     holds across restarts and replicas.
//   - Interrupted runs (a crash, a kill) are taken back within about
//     MissedHeartbeats heartbeats (Config.Heartbeat, 5 s: 15 s), whatever
//     RunTimeout is, and do not count against RetryCount, up to
//     MaxInterruptions; a hard Stop puts a cancelled message back as
//     QUEUED at once (River's snooze), for the next start. So is, without
//     counting, a message whose job a process fetched but died before
//     claiming (below).
//
// # Heartbeats and leases
//
// River (v0.51) cannot renew a running job: its rescuer takes back a job
// whose process died only RescueStuckJobsAfter after the job started, and
// that must exceed the longest run (RunTimeout), so a crash left a
// message RUNNING for RunTimeout + 1 minute. The queue therefore keeps
// its own lease, in the message's row (lease_until), and leaves River's
// rescue long, as a backstop (Config.RescueAfter):
//
//   - A run renews its lease every Config.Heartbeat while its process is
//     alive; the lease lasts MissedHeartbeats (3) heartbeats.
//   - Every replica, once at Start and then every heartbeat, looks for
//     messages RUNNING past their lease that are not its own runs, and
//     takes each back in a transaction that holds its row: QUEUED again,
//     the run counted as interrupted, with a new River job that becomes
//     the message's job (handoff_messages.job_id). The old job, which
//     River's rescuer hands out much later, finds that it is not the
//     message's and runs nothing.
//   - A run whose renewal finds the message taken back (its heartbeats
//     did not reach the database) has its handler's context cancelled.
//   - River marks a job running when it fetches it, before the worker
//     claims the message. A process killed in between leaves the message
//     QUEUED, with no attempt, and its job running until River's rescuer
//     (RescueAfter); so does one killed after a run queued its message
//     again (a failure to retry, a hard stop) but before River recorded
//     the job's snooze. The same sweep takes such a message back: QUEUED
//     (of that job, or of none) and untouched for a lease, its job
//     running for longer than a lease and not one this process works on.
//     It gets a new job that becomes the message's, as above; the run
//     that never started is not counted. A message queued again for the
//     retry of a failed run gets its new job due when the retry was (the
//     failure's time plus Backoff), not at once. A worker's claim with the old
//     job and the take-back exclude each other: both change the message's
//     row on a condition of its status and job_id, and the claim runs only
//     a message QUEUED of its own job (or of none).
//
// On PostgreSQL another replica takes a dead process's runs back; on
// SQLite (one process per file, usually) the process restarted does, at
// Start, once their lease has passed: a restart resumes in seconds.
//
// On SQLite the replicas are processes on one host sharing the store's
// file; on Postgres, any number of hosts.
//
// # Waking, and the idle cost
//
// A queue with nothing to do costs next to nothing; it does not poll for
// work every second:
//
//   - Postgres: River's client LISTENs on one connection of its own; an
//     insert (Enqueue, a retry made available) NOTIFYs every replica when
//     its transaction commits, and the replica fetches at once.
//
//   - SQLite has no LISTEN. River v0.51's SQLite driver stands in for it
//     with a table, river_notification, that its listener reads every
//     50 ms, whatever happens: most of an idle gateway's CPU. The queue
//     replaces that listener (sqliteListener): it reads the table when
//     this process committed a notification (an Enqueue, River's own
//     transactions: a retry made available, a leader resigning), and
//     otherwise once per Config.PollInterval (5 s), for what another
//     process sharing the file wrote. A message queued by this process
//     starts at once; one queued by another process within PollInterval
//     (or at once by that process, whose own workers are woken).
//
//   - River's fetch poll, a backstop for a missed notification (River
//     sends at most one insert notification per Config.FetchCooldown),
//     runs every 100 ms while River's client runs, and not at all while
//     the queue is dormant (below).
//
//   - Throughput: each process runs Config.Workers handlers at once, and
//     River fetches at most once per Config.FetchCooldown (5 ms), each
//     fetch taking as many messages as there are free workers. A message
//     is claimed in one conditional UPDATE (a transaction only for a
//     message retried, interrupted or expired) and queued in one
//     transaction with its job, answered without reading it back. In a
//     bounded task its status is counted in its INSERT, under the task's
//     lock; on PostgreSQL the BEGIN, the lock and that INSERT go in one
//     batch (they stay three statements, so the count sees what the
//     lock's previous holder committed), then River's job and the commit:
//     three round trips to queue it, one to claim it, one for its
//     outcome, and River's fetch, completion and notification batched
//     over many messages (TestEnqueueRoundTrips; BenchmarkBurst reports
//     msgs/s and stmts/msg).
//
//   - Group commit: those are a message's statements when it is alone.
//     Enqueues that arrive while one is being written are written
//     together in the next transaction (group.go): every row and task
//     lock in the one batch with the BEGIN, River's jobs in one
//     InsertMany, one commit. Claims and outcomes that meet are written
//     together the same way (writes.go: one batch, one implicit
//     transaction on PostgreSQL; one transaction on SQLite), up to four
//     batches at once. A caller is answered only once its batch
//     committed; a batch that fails before its commit commits nothing and
//     each member is written again alone, by its caller, so that each
//     gets its own answer; an Enqueue batch whose commit fails answers
//     every member that error (TestEnqueueBatchOneFails,
//     TestEnqueueBatchCut, TestEnqueueBatchOrder, TestWriteBatchOneFails,
//     TestWriteBatchCut). In a burst of 2,000 from 50 goroutines this
//     took the statements per message on PostgreSQL from 5.3 to about 0.8
//     (bench/README.md, "Group commit").
//
//   - The lease sweep (above) is two indexed SELECTs every Heartbeat: of
//     the RUNNING messages whose lease has passed (the status index), and
//     of the jobs running (River's index of jobs by state and queue), each
//     joined to its message by the message's key. An idle process reads
//     two empty ranges and writes nothing (after a kill, the second also
//     holds the dead process's old jobs, until River's rescuer finishes
//     them: a few rows). A lease is renewed only by a run in progress.
//
//   - Dormant when idle: River's client costs CPU whenever it runs, work
//     or not (its job completer wakes every 50 ms, about 0.25% of a core
//     here on its own; its leader election and maintenance every few
//     seconds). A queue that finds no message QUEUED or RUNNING, in any
//     process, at two heartbeats in a row stops River's client (and one
//     that finds none when it starts does not start it); it starts
//     it again at once when this process queues a message (or takes an
//     interrupted run back), and at its next heartbeat when it finds one
//     another replica queued or a retry waiting (that replica runs its
//     own messages at once). While dormant, the heartbeat is all that
//     runs: the sweep's two reads and one read of the status index for
//     QUEUED and RUNNING messages, all empty ranges (see dormant.go). A
//     message QUEUED whose job a dead process holds keeps the queue awake
//     until the sweep gives it a new job.
//
//   - A client that fetches nothing: River's client, started, fetches
//     whenever a worker is free (at once for a job of this process, at
//     least every 100 ms otherwise), and tells nobody when its producer
//     did not start, stopped, or hangs in a fetch. The heartbeat watches
//     for that (stall.go): when the client has run for MissedHeartbeats
//     heartbeats with a worker free and no fetch, and a job of the queue
//     has been available for as long, it logs "River's client fetches no
//     job while jobs wait and workers are free" at WARN (jobs_waiting,
//     no_fetch_for, workers_in_use) and, when no handler of this process
//     runs, stops River's client (waiting at most a heartbeat) and starts
//     it again, which starts a new producer; a client that will not stop
//     is left, and the WARN repeats. A paused River queue (river_queue.
//     paused_at, which nothing of the gateway's sets) is named in the
//     WARN and not restarted. The look is in memory (River's fetches,
//     this process's workers) until a stall is likely; only then does it
//     read River's fetch index. A backlog behind busy workers is no
//     stall. bench/soak/README.md, O1, is the case that asked for it.
//
// bench/README.md ("Idle cost") has the measured figures. The tests count
// River's fetches, the listener's reads and River's client stopping and
// starting (waker) to show that an idle queue does none of them between
// polls, and that an Enqueue wakes it.
package queue
