package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// knownFaults are failures of the gateway the soak finds that are accepted
// as open findings (bench/soak/README.md, "Findings"): scenario/kind → the
// finding. TestSoakShort logs them on every run ("KNOWN FAULT") and fails on
// any other failure; with AGENTGW_SOAK_STRICT=1 it fails on these too. Add
// an entry only with its finding written down; remove it when the fix
// lands, so that the test holds the fix. F1 and F2 (issue 28 items 1 and
// 5) were here until the heartbeat leases and the retried outcomes landed
// (606c57d).
var knownFaults = map[string]string{}

// TestSoakShort runs the four scenarios small and short: 50 clients for 6
// seconds each, a replica killed every 2.5 seconds, PostgreSQL down for 2
// seconds every 2.5, leases renewed every second (so that a dead process's
// runs are taken over within seconds), and up to 20 seconds for queued
// work to settle: settling ends as soon as everything is done, and a
// hand-off whose wake-up was missed waits for the queue's 5 s poll (a
// figure of go run ./bench's hand-off rows), which must not fail the test.
// Without PostgreSQL's initdb and pg_ctl it is skipped, or fails when
// AGENTGW_REQUIRE_POSTGRES=1, as in CI.
func TestSoakShort(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak builds and runs agentgw for about a minute; not with -short")
	}
	if _, err := pgBinDir(); err != nil {
		// As every PostgreSQL test of the repository: skipped on a machine
		// with only Go, failed in CI (.ci/run sets AGENTGW_REQUIRE_POSTGRES).
		if os.Getenv("AGENTGW_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("the soak's PostgreSQL scenarios need PostgreSQL's server binaries: %v", err)
		}
		t.Skipf("the soak's PostgreSQL scenarios need PostgreSQL's server binaries (AGENTGW_REQUIRE_POSTGRES=1 fails instead): %v", err)
	}
	p := params{
		duration: 6 * time.Second, streams: 50, gap: 50 * time.Millisecond, runGap: 20 * time.Millisecond,
		killEvery: 2500 * time.Millisecond, outage: 2 * time.Second, settle: 20 * time.Second,
		sample: 4 * time.Second, every: 2 * time.Second, heartbeat: time.Second,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	reps, err := run(ctx, p, scenarioOrder, testWriter{t})
	var out strings.Builder
	for _, r := range reps {
		writeReport(&out, r)
	}
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	strict := os.Getenv("AGENTGW_SOAK_STRICT") == "1"
	for _, r := range reps {
		for _, f := range r.failures {
			if known, ok := knownFaults[r.name+"/"+f.kind]; ok && !strict {
				t.Logf("KNOWN FAULT %s, %s (%s): %s", known, r.name, f.kind, f.msg)
				continue
			}
			t.Errorf("%s (%s): %s", r.name, f.kind, f.msg)
		}
	}
}

// testWriter sends the harness's progress to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// TestParseFlags checks the scenario names.
func TestParseFlags(t *testing.T) {
	var sink strings.Builder
	_, names, err := parseFlags([]string{"-scenario", "all"}, &sink)
	if err != nil || strings.Join(names, ",") != strings.Join(scenarioOrder, ",") {
		t.Fatalf("all = %v, %v", names, err)
	}
	if _, _, err := parseFlags([]string{"-scenario", "nope"}, &sink); err == nil {
		t.Fatal("an unknown scenario was accepted")
	}
}
