package sqlite_test

import (
	"context"
	"testing"
)

func BenchmarkAdhocPages(b *testing.B) {
	ctx := context.Background()
	st, _ := benchStore(b, 2000, 100)
	b.Run("summary", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, _, err := st.AccountSummary(ctx, "uid:7"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("accountpage", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := st.UserAccountPage(ctx, "uid:7", 100); err != nil {
				b.Fatal(err)
			}
		}
	})
}
