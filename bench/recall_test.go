package main

import (
	"reflect"
	"testing"
)

// TestRecallRuns: the recall path runs on SQLite, and with -pg also on
// PostgreSQL, its gateway and agentgw kb index given the database's URL.
func TestRecallRuns(t *testing.T) {
	const db = "postgres://postgres@127.0.0.1:5432/agentgw_bench_recall_1?sslmode=disable"
	type run struct {
		name, label, plain, recall string
		env                        []string
	}
	sqlite := run{"agentgw-recall", "SQLite", "agentgw-recall-plain", "agentgw-recall", nil}
	for _, tc := range []struct {
		pgStore string
		want    []run
	}{
		{"", []run{sqlite}},
		{db, []run{sqlite, {"agentgw-pg-recall", "PostgreSQL", "agentgw-pg-recall-plain", "agentgw-pg-recall",
			[]string{"AGENTGW_STORE_URL=" + db}}}},
	} {
		var got []run
		for _, r := range recallRuns(tc.pgStore) {
			got = append(got, run{r.store.name, r.store.label, r.store.plain, r.store.recall, r.env})
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("recallRuns(%q) = %q, want %q", tc.pgStore, got, tc.want)
		}
	}
}
