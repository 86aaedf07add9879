package sqlite

import (
	"context"
	"database/sql"

	"github.com/tradebench/tradebench/trade/store"
)

var (
	_ store.Auditor   = (*Store)(nil)
	_ store.Versioner = (*Store)(nil)
)

// Audit implements store.Auditor: the shared audit queries in one read transaction on a
// reader connection, which in WAL mode is one snapshot however long the queries take, and
// never blocks the writer.
func (s *Store) Audit(ctx context.Context, limit int) (store.AuditReport, error) {
	var rep store.AuditReport
	li, err := s.Loaded(ctx)
	if err != nil {
		return rep, err
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()
	sc := &rep.Scope
	sc.LoadedMaxOrderID = li.MaxOrderID
	if err := tx.QueryRowContext(ctx, store.AuditScopeQuery).Scan(&sc.Accounts, &sc.Orders, &sc.Holdings, &sc.Quotes); err != nil {
		return rep, err
	}
	for _, q := range store.AuditQueries(li.MaxOrderID) {
		if err := collect(ctx, tx, q, &rep, limit); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func collect(ctx context.Context, tx *sql.Tx, query string, rep *store.AuditReport, limit int) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rep.Collect(rows.Scan, limit); err != nil {
			return err
		}
	}
	return rows.Err()
}
