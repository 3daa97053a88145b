package runner

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/store"
)

// errDown is what a store whose database went away answers.
var errDown = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

// flakyStore is a store whose operations fail on demand, as a database
// going away and coming back makes them; the data it holds stays.
type flakyStore struct {
	store.Store
	mu   sync.Mutex
	down map[string]bool // "Put", "Get", "Take"; "TakeLost": the take runs, its answer is lost
}

func newFlakyStore() *flakyStore { return &flakyStore{Store: store.NewMemory()} }

// fail makes ops fail from now on; with no ops the store is back.
func (f *flakyStore) fail(ops ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = map[string]bool{}
	for _, op := range ops {
		f.down[op] = true
	}
}

func (f *flakyStore) failing(op string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down[op]
}

func (f *flakyStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if f.failing("Put") {
		return errDown
	}
	return f.Store.Put(ctx, key, value, ttl)
}

func (f *flakyStore) Get(ctx context.Context, key string) ([]byte, error) {
	if f.failing("Get") {
		return nil, errDown
	}
	return f.Store.Get(ctx, key)
}

func (f *flakyStore) Take(ctx context.Context, key string) ([]byte, error) {
	if f.failing("Take") {
		return nil, errDown
	}
	return f.Store.Take(ctx, key)
}

func (f *flakyStore) Claim(ctx context.Context, key, token string) ([]byte, error) {
	if f.failing("Take") {
		return nil, errDown
	}
	if f.failing("TakeLost") {
		_, _ = f.Store.Claim(ctx, key, token)
		return nil, errDown
	}
	return f.Store.Claim(ctx, key, token)
}

func (f *flakyStore) Release(ctx context.Context, key, token string) error {
	if f.failing("Take") || f.failing("TakeLost") {
		return errDown
	}
	return f.Store.Release(ctx, key, token)
}

// wantStoreUnavailable fails unless err is the STORE_UNAVAILABLE of
// before the stream, every field of it.
func wantStoreUnavailable(t *testing.T, err error) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want STORE_UNAVAILABLE before the stream", err)
	}
	want := apierr.Error{Code: apierr.CodeStoreUnavailable, Status: 503, Source: apierr.SourceServer, Recoverable: true,
		Message: "the gateway's store is unavailable: it could not read or keep the run's data"}
	if e.Code != want.Code || e.Status != want.Status || e.Source != want.Source || e.Recoverable != want.Recoverable || e.Message != want.Message {
		t.Fatalf("got %+v, want %+v", e, want)
	}
	if s := e.Suggestion(); s != "try again in a moment: the gateway's database did not answer, and the gateway recovers on its own once it is back" {
		t.Errorf("suggestion %q", s)
	}
	if !errors.Is(e, errDown) {
		t.Errorf("the cause %v is not the store's error", e.Err)
	}
}

// TestPauseStoreDownFrames: a consent pause whose store write fails ends
// the answer with the text so far, a copilot_error STORE_UNAVAILABLE, the
// final chunk and the terminator (the golden file holds the exact frames;
// it was an INTERNAL error); once the store is back the same question
// pauses as it should.
func TestPauseStoreDownFrames(t *testing.T) {
	st := newFlakyStore()
	r, _ := toolRunner(t, st)
	st.fail("Put")
	golden.Check(t, "testdata/frames/pause_store_down.sse", streamFrames(t, r, promptBody("deploy"), "t", "req-store"))

	st.fail()
	rec, err := runRequest(t, r, promptBody("deploy"))
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.Err(); e != nil {
		t.Fatalf("after the store came back: %+v", e)
	}
	if a := lastAction(t, rec); a.Confirm == nil || a.Confirm.Message != `Deploy to production? {"env": "prod"}` {
		t.Fatalf("after the store came back, the consent asked is %+v", a.Confirm)
	}
}

// TestResumeStoreDown: a consent answer whose taking of the paused run
// fails is a 503 STORE_UNAVAILABLE before the stream (it was 400
// STATE_INVALID, as if the run had expired), and the paused run is still
// there when the store comes back: the same answer resumes it, once, with
// the exact upstream requests of a resume that never met an outage, and a
// third answer finds it answered. Two ways to fail: the take refused
// ("Take"), and the take reaching the store with its answer lost with the
// connection ("TakeLost", soak F11).
func TestResumeStoreDown(t *testing.T) {
	for _, failing := range []string{"Take", "TakeLost"} {
		t.Run(failing, func(t *testing.T) {
			st := newFlakyStore()
			r, m := toolRunner(t, st)
			rec, err := runRequest(t, r, turnsBody("deploy"))
			if err != nil {
				t.Fatal(err)
			}
			accept := `{"agent":"t","action":{"action":"confirm","state":` + q(lastAction(t, rec).State) + `,"accepted":true}}`
			st.fail(failing)
			_, err = runRequest(t, r, accept)
			wantStoreUnavailable(t, err)

			st.fail()
			if rec, err = runRequest(t, r, accept); err != nil {
				t.Fatalf("after the store came back: %v", err)
			}
			if e := rec.Err(); e != nil {
				t.Fatalf("the resumed run failed: %+v", e)
			}
			got := append(bytes.Join(m.Bodies(), []byte("\n")), '\n')
			golden.Check(t, "testdata/resume/consent-accept.txt", ranFor.ReplaceAll(got, []byte(`\"executionTime\":0}`)))
			_, err = runRequest(t, r, accept)
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != apierr.CodeStateInvalid {
				t.Fatalf("a third answer: %v, want STATE_INVALID", err)
			}
		})
	}
}

// stateAgent keeps a plan's state for its action's handler.
const stateAgent = `
name: s
commands:
  - name: default
    steps:
      - id: init
        set: {n: 7}
      - id: ask
        dependsOn: [init]
        action:
          action: confirm
          data: {title: More, message: m}
          onAccept:
            - id: say
              reply: "handler {{ .state.n }}"
`

// TestFeedbackStateStoreDown: feedback on an action whose plan state cannot
// be read is a 503 STORE_UNAVAILABLE before the stream (the handler ran
// with an empty state, as if it had expired), and reads it once the store
// is back.
func TestFeedbackStateStoreDown(t *testing.T) {
	st := newFlakyStore()
	r, _ := testRunner(t, stateAgent, nil, RunnerConfig{Store: st})
	rec, err := runRequest(t, r, `{"agent":"s"}`)
	if err != nil {
		t.Fatal(err)
	}
	accept := `{"agent":"s","action":{"action":"confirm","state":` + q(lastAction(t, rec).State) + `,"accepted":true}}`
	st.fail("Get")
	rec, err = runRequest(t, r, accept)
	if err == nil {
		t.Fatalf("the handler ran without its state: %q %+v", rec.Transcript(), rec.Err())
	}
	wantStoreUnavailable(t, err)

	st.fail()
	if rec, err = runRequest(t, r, accept); err != nil {
		t.Fatal(err)
	}
	if got := rec.Transcript(); got != "handler 7" || rec.Err() != nil {
		t.Fatalf("after the store came back: %q %+v", got, rec.Err())
	}
}

// TestSaveStateStoreDown: a plan whose state for its action's handler
// cannot be kept ends its stream with STORE_UNAVAILABLE after the action
// (the failure was only logged, and the handler later ran without the
// state).
func TestSaveStateStoreDown(t *testing.T) {
	st := newFlakyStore()
	r, _ := testRunner(t, stateAgent, nil, RunnerConfig{Store: st})
	st.fail("Put")
	rec, err := runRequest(t, r, `{"agent":"s"}`)
	if err != nil {
		t.Fatal(err)
	}
	frames := rec.Frames()
	kinds := make([]string, len(frames))
	for i, f := range frames {
		kinds[i] = f.Kind
	}
	if got := strings.Join(kinds, ","); got != "action,error,end" {
		t.Fatalf("frames %s, want action,error,end", got)
	}
	wantStoreUnavailable(t, rec.Err())
}
