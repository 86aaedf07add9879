package sqlite

import (
	"context"

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
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return store.AuditReport{}, err
	}
	defer tx.Rollback()
	return sqlstore.Audit(ctx, conn{q{s: s, tx: tx}}, limit)
}
