package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade/store/plantest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// recorder is a querier that keeps every statement it runs, with its arguments.
type recorder struct {
	db querier
	mu sync.Mutex
	qs []recorded
}

type recorded struct {
	sql  string
	args []any
}

func (r *recorder) note(sql string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.qs = append(r.qs, recorded{sql, args})
}

func (r *recorder) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	r.note(sql, args)
	return r.db.Exec(ctx, sql, args...)
}

func (r *recorder) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	r.note(sql, args)
	return r.db.Query(ctx, sql, args...)
}

func (r *recorder) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	r.note(sql, args)
	return r.db.QueryRow(ctx, sql, args...)
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

// fullScans returns the plan's reads of a whole big table: a sequential scan, or an index
// scan without an index condition (it reads the whole index, e.g. the primary key in order).
func fullScans(n planNode, out []string) []string {
	switch {
	case n.NodeType == "Seq Scan" && plantest.BigTables.MatchString(n.Relation):
		out = append(out, "Seq Scan on "+n.Relation)
	case n.Index != "" && n.IndexCond == "" && plantest.BigTables.MatchString(n.Relation+" "+n.Index):
		out = append(out, n.NodeType+" of all of "+n.Index)
	}
	for _, c := range n.Plans {
		out = fullScans(c, out)
	}
	return out
}

// Every statement the pages run is planned with an index: EXPLAIN of each, with its real
// arguments and sequential scans disabled (so the planner takes any index that can serve, and
// a small test database cannot hide a missing one behind a cheap scan), must read a big table
// only through an index condition.
func TestQueryPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Load(ctx, plantest.Spec(), nil); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{db: st.pool}
	st.q = q{db: rec}
	plantest.ReadAll(t, st, "uid:7")
	if len(rec.qs) < 10 {
		t.Fatalf("%d statements recorded, want one per read", len(rec.qs))
	}

	conn, err := st.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET enable_seqscan")
	for _, r := range rec.qs {
		var js []byte
		if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+r.sql, r.args...).Scan(&js); err != nil {
			t.Fatalf("%s: %v", r.sql, err)
		}
		var plan []struct{ Plan planNode }
		if err := json.Unmarshal(js, &plan); err != nil || len(plan) != 1 {
			t.Fatalf("%s: EXPLAIN output %s: %v", r.sql, js, err)
		}
		if bad := fullScans(plan[0].Plan, nil); len(bad) > 0 {
			t.Errorf("%s\nreads a whole table: %s\nplan: %s", r.sql, strings.Join(bad, "; "), js)
		}
	}
}
