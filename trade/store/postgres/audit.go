package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlstore"
)

var (
	_ store.Auditor   = (*Store)(nil)
	_ store.Versioner = (*Store)(nil)
)

// Audit implements store.Auditor: the shared audit queries in one REPEATABLE READ, READ ONLY
// transaction, so every check sees the same snapshot while the system keeps running, with
// memory enough for the per-account and per-holding aggregates to hash in one pass.
func (s *Store) Audit(ctx context.Context, limit int) (store.AuditReport, error) {
	li, err := s.Loaded(ctx)
	if err != nil {
		return store.AuditReport{}, err
	}
	var rep store.AuditReport
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		if _, err := t.Exec(ctx, "SET LOCAL work_mem = '256MB'"); err != nil {
			return err
		}
		rep, err = sqlstore.Audit(auditTx{ctx, t}, li, limit)
		return err
	})
	return rep, err
}

// auditTx is the audit's snapshot: one read-only transaction.
type auditTx struct {
	ctx context.Context
	t   pgx.Tx
}

// Each implements sqlstore.AuditDB.
func (a auditTx) Each(query string, row func(sqlstore.Scanner) error) error {
	rows, err := a.t.Query(a.ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlstore.Each(rows, row)
}
