package index

import (
	"strings"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// dialect writes the statements whose shape hangs on a number of values.
// On SQLite a list is one placeholder per value. On Postgres it is one
// array parameter, so that the statement's text is the same whatever the
// number of values and pgx's statement cache keeps it prepared: a new
// text costs a round trip to prepare it, and the search statements would
// otherwise have a new text nearly every time.
type dialect struct{ pg bool }

// ints is "col IN (…)" for vals, and its arguments.
func (d dialect) ints(col string, vals []int64) (string, []any) {
	if d.pg {
		return col + ` = ANY(?::bigint[])`, []any{vals}
	}
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = v
	}
	return col + ` IN (` + dbconn.Placeholders(len(vals)) + `)`, args
}

// fileSet is "col IN (…)" for vals too, for a condition besides an index
// range (a term's postings): on Postgres a semi-join with the array's
// elements. "col = ANY($n)" would be a filter there that compares each row
// with every element (a prepared statement's generic plan cannot hash a
// parameter's array): 100 ms for a common term's 10,000 rows against
// 1,000 candidate files, where the join takes 3 ms.
func (d dialect) fileSet(col string, vals []int64) (string, []any) {
	if d.pg {
		return col + ` IN (SELECT unnest(?::bigint[]))`, []any{vals}
	}
	return d.ints(col, vals)
}

// strs is "col IN (…)" for vals, and its arguments.
func (d dialect) strs(col string, vals []string) (string, []any) {
	if d.pg {
		return col + ` = ANY(?::text[])`, []any{vals}
	}
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = v
	}
	return col + ` IN (` + dbconn.Placeholders(len(vals)) + `)`, args
}

// keys is the condition that (file_id, ord) is one of ks, and its
// arguments.
func (d dialect) keys(ks []key) (string, []any) {
	if d.pg {
		files, ords := make([]int64, len(ks)), make([]int64, len(ks))
		for i, k := range ks {
			files[i], ords[i] = k.file, int64(k.ord)
		}
		return `(file_id, ord) IN (SELECT * FROM unnest(?::bigint[], ?::bigint[]))`, []any{files, ords}
	}
	byFile := map[int64][]any{}
	var order []int64
	for _, k := range ks {
		if _, ok := byFile[k.file]; !ok {
			order = append(order, k.file)
		}
		byFile[k.file] = append(byFile[k.file], k.ord)
	}
	var where []string
	var args []any
	for _, f := range order {
		where = append(where, `(file_id = ? AND ord IN (`+dbconn.Placeholders(len(byFile[f]))+`))`)
		args = append(args, f)
		args = append(args, byFile[f]...)
	}
	return `(` + strings.Join(where, " OR ") + `)`, args
}
