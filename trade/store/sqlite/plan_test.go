package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade/store/plantest"
)

// Every statement the pages run on the reader pool is planned with an index: EXPLAIN QUERY
// PLAN of each must show no full scan of a big table ("SCAN orders", also "SCAN orders USING
// INDEX …", which reads the whole index) and no sort of its rows (the account page's orders
// come in index order, so LIMIT stops early). The statements are taken from the reader pool's
// statement cache after a run of every read, so a new or changed query is checked too.
func TestQueryPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Load(ctx, plantest.Spec(), nil); err != nil {
		t.Fatal(err)
	}
	plantest.ReadAll(t, st, "uid:7")

	st.rs.mu.Lock()
	var queries []string
	for q := range st.rs.m {
		queries = append(queries, q)
	}
	st.rs.mu.Unlock()
	if len(queries) < 10 {
		t.Fatalf("%d statements cached after every read, want one per query", len(queries))
	}
	for _, q := range queries {
		// the plan does not depend on the values (no stat4 statistics): NULLs will do
		args := make([]any, strings.Count(q, "?"))
		rows, err := st.r.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, step := range plan {
			if (strings.HasPrefix(step, "SCAN ") && plantest.BigTables.MatchString(step)) || strings.Contains(step, "TEMP B-TREE") {
				t.Errorf("%s\nplan: %s", q, strings.Join(plan, "; "))
			}
		}
	}
}
