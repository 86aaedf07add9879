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
	var rep store.AuditReport
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		if _, err := t.Exec(ctx, "SET LOCAL work_mem = '256MB'"); err != nil {
			return err
		}
		var err error
		rep, err = sqlstore.Audit(ctx, conn{t}, limit)
		return err
	})
	return rep, err
}
