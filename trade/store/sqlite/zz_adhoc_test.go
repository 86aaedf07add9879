package sqlite_test

import (
	"context"
	"testing"

	"github.com/tradebench/tradebench/trade/store/sqlstore"
)

func BenchmarkAdhocAP(b *testing.B) {
	ctx := context.Background()
	st, db := benchStore(b, 2000, 100)
	const userAccount = "(SELECT accountid FROM accounts WHERE userid = ?)"
	full := sqlstore.AccountPageSQL("?", userAccount, "?+0")
	slim := "SELECT 0, balance, accountid, openbalance, userid, fullname, address, creationdate, lastlogin, logincount, logoutcount, 0, email, creditcard FROM accounts WHERE userid = ?" +
		" UNION ALL SELECT 1, orderid, 0, 0, symbol, ordertype, status, opendate, completiondate, quantity, price, fee, '', '' FROM orders WHERE accountid = " + userAccount + " AND status = 'closed'" +
		" UNION ALL SELECT * FROM (SELECT 2, orderid, 0, 0, symbol, ordertype, status, opendate, completiondate, quantity, price, fee, '', '' FROM orders WHERE accountid = " + userAccount + " ORDER BY opendate DESC, orderid DESC LIMIT ?+0)"
	for _, c := range []struct {
		name, q string
	}{{"full", full}, {"slim-cols-zeroed", slim}} {
		stmt, err := db.Prepare(c.q)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"-next", func(b *testing.B) {
			for b.Loop() {
				wantRows(b, stmt, 6, "uid:7", "uid:7", "uid:7", 100)
			}
		})
	}
	b.Run("store", func(b *testing.B) {
		for b.Loop() {
			st.UserAccountPage(ctx, "uid:7", 100)
		}
	})
	b.Run("summary", func(b *testing.B) {
		for b.Loop() {
			st.AccountSummary(ctx, "uid:7")
		}
	})
}
