package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
)

// AccountState is everything stored about one user.
type AccountState struct {
	Account      trade.Account
	Profile      trade.AccountProfile
	PasswordHash string
	Holdings     []trade.Holding
	Orders       []trade.Order // most recent first
}

// Snapshot is the state of a set of users and symbols, read through the store's primitives.
// Users and symbols that do not exist are absent.
type Snapshot struct {
	Accounts map[string]AccountState
	Quotes   map[string]trade.Quote
}

// Users lists uid:0 … uid:n-1 and the extra ids.
func Users(n int, extra ...string) []string {
	out := make([]string, 0, n+len(extra))
	for i := 0; i < n; i++ {
		out = append(out, dataset.UserID(i))
	}
	return append(out, extra...)
}

// Symbols lists s:0 … s:n-1 and the extra symbols.
func Symbols(n int, extra ...string) []string {
	out := make([]string, 0, n+len(extra))
	for i := 0; i < n; i++ {
		out = append(out, dataset.Symbol(i))
	}
	return append(out, extra...)
}

// Take reads a snapshot.
func Take(t testing.TB, r store.Reader, users, symbols []string) Snapshot {
	t.Helper()
	ctx := context.Background()
	s := Snapshot{Accounts: map[string]AccountState{}, Quotes: map[string]trade.Quote{}}
	for _, u := range users {
		a, err := r.Account(ctx, u)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		must(t, err)
		st := AccountState{Account: a}
		st.Profile, err = r.Profile(ctx, u)
		must(t, err)
		st.PasswordHash, err = r.PasswordHash(ctx, u)
		must(t, err)
		st.Holdings, err = r.Holdings(ctx, a.AccountID)
		must(t, err)
		st.Orders, err = r.Orders(ctx, a.AccountID, 1_000_000)
		must(t, err)
		s.Accounts[u] = st
	}
	qs, err := r.Quotes(ctx, symbols)
	must(t, err)
	for _, q := range qs {
		s.Quotes[q.Symbol] = q
	}
	return s
}

// Generated is the snapshot a load of spec must produce (hash: the stored password hash).
func Generated(spec store.LoadSpec, hash string) Snapshot {
	g := dataset.New(spec, hash)
	s := Snapshot{Accounts: map[string]AccountState{}, Quotes: map[string]trade.Quote{}}
	for i := 0; i < spec.Accounts; i++ {
		b := g.Account(i)
		orders := append([]trade.Order(nil), b.Orders...)
		sort.Slice(orders, func(i, j int) bool { return orders[i].OpenDate.After(orders[j].OpenDate) })
		s.Accounts[b.Account.UserID] = AccountState{Account: b.Account, Profile: b.Profile, PasswordHash: hash,
			Holdings: b.Holdings, Orders: orders}
	}
	for i := 0; i < spec.Quotes; i++ {
		q := g.Quote(i)
		s.Quotes[q.Symbol] = q
	}
	return s
}

// WithoutHashes blanks the password hashes (bcrypt salts differ between loads).
func (s Snapshot) WithoutHashes() Snapshot {
	out := Snapshot{Accounts: map[string]AccountState{}, Quotes: s.Quotes}
	for k, v := range s.Accounts {
		v.PasswordHash = ""
		out.Accounts[k] = v
	}
	return out
}

// Diff describes the first differences between two snapshots ("" if equal).
func Diff(want, got Snapshot) string {
	var out string
	n := 0
	note := func(format string, args ...any) {
		if n < 5 {
			out += fmt.Sprintf(format+"\n", args...)
		}
		n++
	}
	keys := func(m map[string]AccountState, o map[string]AccountState) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		for k := range o {
			if _, ok := m[k]; !ok {
				ks = append(ks, k)
			}
		}
		sort.Strings(ks)
		return ks
	}
	for _, k := range keys(want.Accounts, got.Accounts) {
		w, wok := want.Accounts[k]
		g, gok := got.Accounts[k]
		switch {
		case !wok:
			note("user %s: unexpected", k)
		case !gok:
			note("user %s: missing", k)
		case !reflect.DeepEqual(w, g):
			note("user %s:\n  want %+v\n  got  %+v", k, w, g)
		}
	}
	for k, w := range want.Quotes {
		if g, ok := got.Quotes[k]; !ok || g != w {
			note("quote %s: want %+v, got %+v (present %v)", k, w, g, ok)
		}
	}
	for k, g := range got.Quotes {
		if _, ok := want.Quotes[k]; !ok {
			note("quote %s: unexpected %+v", k, g)
		}
	}
	if n > 5 {
		out += fmt.Sprintf("… and %d more differences\n", n-5)
	}
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
