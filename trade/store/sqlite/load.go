package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlstore"
)

// Load implements store.Store: one transaction on the writer connection with synchronous=OFF,
// tables filled by multi-row inserts before their secondary indexes are built. Each step is a
// function below.
func (s *Store) Load(ctx context.Context, spec store.LoadSpec, progress func(done, total int64)) error {
	l, err := sqlstore.NewLoad(spec, progress)
	if err != nil {
		return err
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	s.ws.reset()
	s.rs.reset()
	restore, err := fastLoadPragmas(ctx, conn)
	if err != nil {
		return err
	}
	defer restore()

	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p := &loadProgress{l: l}
	if err := recreateTables(ctx, tx); err != nil {
		return err
	}
	if err := insertQuotes(ctx, tx, p); err != nil {
		return err
	}
	if err := insertAccounts(ctx, tx, p); err != nil {
		return err
	}
	p.report()
	if err := buildCopiesAndIndexes(ctx, tx, p); err != nil {
		return err
	}
	_, marker := l.Marker()
	if _, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('load', ?)", marker); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Statistics for the planner (sampled: cheap on big tables), and the WAL folded back into
	// the database file so the first benchmark run does not pay for it.
	for _, p := range []string{"PRAGMA analysis_limit = 1000", "ANALYZE", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	l.Progress(l.Total, l.Total)
	return nil
}

// fastLoadPragmas sets the writer connection up for a bulk load (no fsync, a 256 MiB page
// cache); restore puts back the settings every other transaction runs under, even when ctx has
// ended.
func fastLoadPragmas(ctx context.Context, conn *sql.Conn) (restore func(), err error) {
	for _, p := range []string{"PRAGMA synchronous = OFF", "PRAGMA cache_size = -262144"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return nil, err
		}
	}
	return func() {
		bg := context.WithoutCancel(ctx)
		_, _ = conn.ExecContext(bg, "PRAGMA synchronous = NORMAL")
		_, _ = conn.ExecContext(bg, "PRAGMA cache_size = -32000")
	}, nil
}

// loadProgress counts a load's rows and steps for its progress bar; the load runs on one
// goroutine.
type loadProgress struct {
	l    *sqlstore.Load
	done int64
}

func (p *loadProgress) report() { p.l.Progress(p.done, p.l.Total) }

// postSteps is how many steps share the progress bar's Post part: three pristine copies and
// five indexes.
const postSteps = 8

// step counts one of the postSteps.
func (p *loadProgress) step() {
	p.done += p.l.Post / postSteps
	p.report()
}

// recreateTables drops every table and its pristine copy and creates it again without its
// secondary indexes.
func recreateTables(ctx context.Context, tx *sql.Tx) error {
	for _, t := range tables {
		for _, name := range []string{t, t + "_base"} {
			if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, tableDDL(t)); err != nil {
			return err
		}
	}
	return nil
}

// insertQuotes inserts the generated quotes, 500 rows a statement.
func insertQuotes(ctx context.Context, tx *sql.Tx, p *loadProgress) error {
	qb, err := newBatcher(ctx, tx, "quotes", len(sqlstore.QuoteRowCols), 500)
	if err != nil {
		return err
	}
	for i := 0; i < p.l.Spec.Quotes; i++ {
		x := p.l.Gen.Quote(i)
		if err := qb.add(ctx, sqlstore.QuoteRow(x)...); err != nil {
			return err
		}
		if p.done++; p.done%8192 == 0 {
			p.report()
		}
	}
	return qb.flush(ctx)
}

// insertAccounts generates each account once and inserts it with its holdings and orders, each
// table through its own batcher.
func insertAccounts(ctx context.Context, tx *sql.Tx, p *loadProgress) error {
	ab, err := newBatcher(ctx, tx, "accounts", len(sqlstore.AccountRowCols), 200)
	if err != nil {
		return err
	}
	hb, err := newBatcher(ctx, tx, "holdings", len(sqlstore.HoldingRowCols), 500)
	if err != nil {
		return err
	}
	ob, err := newBatcher(ctx, tx, "orders", len(sqlstore.OrderRowCols), 300)
	if err != nil {
		return err
	}
	for i := 0; i < p.l.Spec.Accounts; i++ {
		b := p.l.Account(i)
		if err := ab.add(ctx, sqlstore.AccountRow(&b, tm)...); err != nil {
			return err
		}
		for i := range b.Holdings {
			if err := hb.add(ctx, sqlstore.HoldingRow(&b.Holdings[i], tm)...); err != nil {
				return err
			}
		}
		for i := range b.Orders {
			if err := ob.add(ctx, sqlstore.OrderRow(&b.Orders[i], tm)...); err != nil {
				return err
			}
		}
		if p.done += int64(1 + 2*len(b.Holdings)); i%1024 == 0 {
			p.report()
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	for _, b := range []*batcher{ab, hb, ob} {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// buildCopiesAndIndexes makes the pristine copies Reset restores from (orders need none:
// loaded orders are final and no operation changes a final order), then the secondary indexes,
// after the rows so that each is built once.
func buildCopiesAndIndexes(ctx context.Context, tx *sql.Tx, p *loadProgress) error {
	for _, t := range []string{"accounts", "holdings", "quotes"} {
		if _, err := tx.ExecContext(ctx, tableDDL(t+"_base")); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+t+"_base SELECT * FROM "+t); err != nil {
			return err
		}
		p.step()
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix); err != nil {
			return err
		}
		p.step()
	}
	return nil
}

// batcher inserts rows with one prepared multi-row INSERT per batch: far fewer statement
// executions than row-at-a-time.
type batcher struct {
	tx    *sql.Tx
	table string
	cols  int
	rows  int
	full  *sql.Stmt
	args  []any
	n     int
}

func newBatcher(ctx context.Context, tx *sql.Tx, table string, cols, rows int) (*batcher, error) {
	b := &batcher{tx: tx, table: table, cols: cols, rows: rows, args: make([]any, 0, cols*rows)}
	st, err := tx.PrepareContext(ctx, b.sql(rows))
	if err != nil {
		return nil, err
	}
	b.full = st
	return b, nil
}

func (b *batcher) sql(rows int) string {
	row := "(" + strings.Repeat(",?", b.cols)[1:] + ")"
	return "INSERT INTO " + b.table + " VALUES " + strings.Repeat(","+row, rows)[1:]
}

func (b *batcher) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	b.n++
	if b.n < b.rows {
		return nil
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args, b.n = b.args[:0], 0
	return err
}

func (b *batcher) flush(ctx context.Context) error {
	defer b.full.Close()
	if b.n == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, b.sql(b.n), b.args...)
	b.args, b.n = b.args[:0], 0
	return err
}
