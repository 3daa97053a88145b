package usage

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// entry is what one request hands the Recorder: its record, when it
// called the model, and what to add to its budget counters.
type entry struct {
	rec    *Record
	deltas []delta
}

// delta is an amount added to a counter when a request is settled.
type delta struct {
	counter string
	n       int64
}

// Recorder writes the entries requests hand it to the Store in batches,
// from a goroutine of its own: Add never waits for the database.
type Recorder struct {
	st    *Store
	log   *slog.Logger
	queue chan entry
	every time.Duration
	batch int
	// dropped counts the entries lost to a full queue; onDrop, when set,
	// is told of each.
	dropped atomic.Int64
	onDrop  func()
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// newRecorder makes a Recorder of st with a queue of size entries, flushed
// at least every every; Run starts it.
func newRecorder(st *Store, size int, every time.Duration, log *slog.Logger) *Recorder {
	return &Recorder{st: st, log: log, queue: make(chan entry, size), every: every, batch: 256,
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Add queues e; when the queue is full (the database has been failing for
// longer than it holds) e is dropped and counted.
func (r *Recorder) Add(e entry) {
	select {
	case r.queue <- e:
	default:
		if n := r.dropped.Add(1); n == 1 || n%1000 == 0 {
			r.log.Warn("usage: queue full, records dropped (the database is failing or too slow)", "dropped", n)
		}
		if r.onDrop != nil {
			r.onDrop()
		}
	}
}

// Dropped is how many entries a full queue dropped.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// Run writes what is queued until Close: a batch when it is full or every
// r.every. A batch the database refused is tried again, with a growing
// pause, until it is written; meanwhile the queue fills behind it and,
// full, drops (Add).
func (r *Recorder) Run() {
	defer close(r.done)
	tick := time.NewTicker(r.every)
	defer tick.Stop()
	var pending []entry
	for {
		select {
		case e := <-r.queue:
			pending = append(pending, e)
			if len(pending) < r.batch {
				continue
			}
		case <-tick.C:
		case <-r.stop:
			r.drain(pending)
			return
		}
		if len(pending) == 0 {
			continue
		}
		if !r.flush(pending) {
			r.drain(pending)
			return
		}
		pending = pending[:0]
	}
}

// flush writes batch, trying again after a growing pause (r.every to 30
// s) while the database refuses it; false when Close came first.
func (r *Recorder) flush(batch []entry) bool {
	backoff := time.Duration(0)
	for {
		err := r.write(context.Background(), batch)
		if err == nil {
			if backoff > 0 {
				r.log.Info("usage: writing records again", "records", len(batch))
			}
			return true
		}
		backoff = min(max(2*backoff, r.every), 30*time.Second)
		r.log.Warn("usage: writing records failed; retrying", "records", len(batch), "retry_in", backoff.String(), "err", err)
		select {
		case <-time.After(backoff):
		case <-r.stop:
			return false
		}
	}
}

// drain writes pending and what the queue holds, once, within 5 seconds.
func (r *Recorder) drain(pending []entry) {
	for {
		select {
		case e := <-r.queue:
			pending = append(pending, e)
			continue
		default:
		}
		break
	}
	if len(pending) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.write(ctx, pending); err != nil {
		r.log.Error("usage: records lost at shutdown", "records", len(pending), "err", err)
	}
}

// write stores a batch: the records, and the deltas added up per counter.
func (r *Recorder) write(ctx context.Context, batch []entry) error {
	recs := make([]Record, 0, len(batch))
	deltas := map[string]int64{}
	for _, e := range batch {
		if e.rec != nil {
			recs = append(recs, *e.rec)
		}
		for _, d := range e.deltas {
			deltas[d.counter] += d.n
		}
	}
	return r.st.Write(ctx, recs, deltas)
}

// Close stops Run after it wrote what was queued.
func (r *Recorder) Close() {
	r.once.Do(func() { close(r.stop) })
	<-r.done
}
