package sqlite

import (
	"context"
	"database/sql"

	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlstore"
)

var (
	_ store.Auditor   = (*Store)(nil)
	_ store.Versioner = (*Store)(nil)
)

// Audit implements store.Auditor: the shared audit queries in one read transaction on a
// reader connection, which in WAL mode is one snapshot however long the queries take, and
// never blocks the writer.
func (s *Store) Audit(ctx context.Context, limit int) (store.AuditReport, error) {
	li, err := s.Loaded(ctx)
	if err != nil {
		return store.AuditReport{}, err
	}
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return store.AuditReport{}, err
	}
	defer tx.Rollback()
	return sqlstore.Audit(auditTx{ctx, tx}, li, limit)
}

// auditTx is the audit's snapshot: one read transaction.
type auditTx struct {
	ctx context.Context
	tx  *sql.Tx
}

// Each implements sqlstore.AuditDB.
func (a auditTx) Each(query string, row func(sqlstore.Scanner) error) error {
	rows, err := a.tx.QueryContext(a.ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlstore.Each(rows, row)
}
