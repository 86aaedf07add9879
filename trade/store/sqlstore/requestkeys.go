package sqlstore

import (
	"context"
	"database/sql"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// RequestKeysDDL is the table of keyed requests (store.Tx.ClaimKey), the same in both SQL
// stores: the key is the primary key, so two transactions placing the same key cannot both
// commit — the database decides, not a lookup before the insert. orderid is NULL for a
// registration or a profile update.
const RequestKeysDDL = `CREATE TABLE IF NOT EXISTS requestkeys (idemkey TEXT PRIMARY KEY, kind TEXT NOT NULL,
	userid TEXT NOT NULL, orderid BIGINT)`

// RequestKeyCols are the columns ScanRequestKey takes.
const RequestKeyCols = "idemkey, kind, userid, orderid"

// RequestKeySQL reads one key (a ? parameter; Rebind it for a numbered dialect).
const RequestKeySQL = "SELECT " + RequestKeyCols + " FROM requestkeys WHERE idemkey = ?"

// ScanRequestKey scans RequestKeyCols (store.ErrNotFound for no row).
func ScanRequestKey(r Scanner) (trade.RequestKey, error) {
	var k trade.RequestKey
	var kind string
	var order sql.NullInt64
	if err := r.Scan(&k.Key, &kind, &k.UserID, &order); err != nil {
		return trade.RequestKey{}, NotFound(err)
	}
	k.Kind, k.OrderID = trade.RequestKind(kind), order.Int64
	return k, nil
}

// ClaimKey implements store.Tx: store.ErrDuplicate when the key is already stored (on
// PostgreSQL the violation ends the transaction, so the caller returns and looks the key up).
func (w Writes) ClaimKey(ctx context.Context, k trade.RequestKey) error {
	_, err := w.c.Exec(ctx, w.d.sql.claimKey, k.Key, string(k.Kind), k.UserID, nullID(k.OrderID))
	if err != nil && w.d.IsUnique(err) {
		return store.ErrDuplicate
	}
	return err
}
