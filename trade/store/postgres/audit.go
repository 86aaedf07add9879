package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/tradebench/tradebench/trade/store"
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
	li, err := s.Loaded(ctx)
	if err != nil {
		return rep, err
	}
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		rep = store.AuditReport{}
		if _, err := t.Exec(ctx, "SET LOCAL work_mem = '256MB'"); err != nil {
			return err
		}
		sc := &rep.Scope
		sc.LoadedMaxOrderID = li.MaxOrderID
		if err := t.QueryRow(ctx, store.AuditScopeQuery).Scan(&sc.Accounts, &sc.Orders, &sc.Holdings, &sc.Quotes); err != nil {
			return err
		}
		for _, query := range store.AuditQueries(li.MaxOrderID) {
			rows, err := t.Query(ctx, query)
			if err != nil {
				return err
			}
			for rows.Next() {
				if err := rep.Collect(rows.Scan, limit); err != nil {
					rows.Close()
					return err
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return rep, err
}
