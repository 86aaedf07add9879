// Package dataset generates the StockTrader data set: accounts uid:0…, their holdings and the
// completed buy orders that made them, and quotes s:0…. Every entity is derived from the seed
// and its own index alone, so generation is deterministic, needs no state, and can run in any
// order or in parallel (one generator per table when bulk loading).
package dataset

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade"
	"golang.org/x/crypto/bcrypt"
)

// Password is every generated user's password (Trade 6.1's populate uses "xxx").
const Password = "xxx"

// OpenBalance is every generated account's opening balance (Trade 6.1: 1,000,000).
const OpenBalance = trade.Money(1_000_000_00)

// DefaultHashCost is the bcrypt cost of the loaded users' password. The minimum keeps a login
// cheap enough not to dominate a benchmark; raise it to model a realistic login.
const DefaultHashCost = bcrypt.MinCost

// Epoch is the fixed "now" of generated data: dates must not depend on the wall clock, or two
// loads with one seed would differ.
var Epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Spec sizes the data set.
type Spec struct {
	Accounts int   `json:"accounts"`
	Quotes   int   `json:"quotes"`
	Holdings int   `json:"holdings"` // per account; each comes with the completed buy order that made it
	Seed     int64 `json:"seed"`
	HashCost int   `json:"hashCost"` // bcrypt cost of the shared password hash
}

// The one default data set and place of the commands that make a data set for you ('tradebench
// run', and 'serve --load-if-empty'), and the database every StockTrader command (serve, load,
// reset, audit) uses when none is given: small enough to load in seconds and run in minutes on a
// laptop, in one working directory so that 'run' followed by 'serve' or 'audit' finds its data.
// 'load' alone still generates the paper's size (DefaultSpec) unless told otherwise.
const (
	DefaultDir      = "tradebench-work"
	DefaultDB       = "sqlite:" + DefaultDir + "/stocktrader.db"
	DefaultAccounts = 5000
	DefaultQuotes   = 1000
)

// DefaultSpec is the 2007 paper's realistic load: 500,000 accounts, 5 holdings each, 100,000 quotes.
func DefaultSpec() Spec {
	return Spec{Accounts: 500_000, Quotes: 100_000, Holdings: 5, Seed: 1, HashCost: DefaultHashCost}
}

// Limits keep ids and arithmetic far from overflow and a typo from filling the disk.
const (
	MaxAccounts = 100_000_000
	MaxQuotes   = 10_000_000
	MaxHoldings = 100
)

// Validate reports a spec that cannot be generated, naming the field as the CLI flag.
func (s Spec) Validate() error {
	switch {
	case s.Accounts < 1 || s.Accounts > MaxAccounts:
		return setting.Errorf("Accounts", "must be between 1 and %d, got %d", MaxAccounts, s.Accounts)
	case s.Quotes < 1 || s.Quotes > MaxQuotes:
		return setting.Errorf("Quotes", "must be between 1 and %d, got %d", MaxQuotes, s.Quotes)
	case s.Holdings < 0 || s.Holdings > MaxHoldings:
		return setting.Errorf("Holdings", "must be between 0 and %d, got %d", MaxHoldings, s.Holdings)
	case s.HashCost < bcrypt.MinCost || s.HashCost > bcrypt.MaxCost:
		return setting.Errorf("HashCost", "must be a bcrypt cost between %d and %d, got %d", bcrypt.MinCost, bcrypt.MaxCost, s.HashCost)
	}
	return nil
}

// Rows is how many rows the spec makes in all tables (for progress).
func (s Spec) Rows() int64 {
	return int64(s.Accounts)*int64(1+2*s.Holdings) + int64(s.Quotes)
}

func (s Spec) String() string {
	b, _ := json.Marshal(s)
	return string(b)
}

// UserID is the i-th generated user id.
func UserID(i int) string { return "uid:" + strconv.Itoa(i) }

// Symbol is the i-th generated quote symbol.
func Symbol(i int) string { return "s:" + strconv.Itoa(i) }

// HashPassword hashes Password once for the whole load.
func HashPassword(cost int) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(Password), cost)
	return string(h), err
}

// Gen generates the rows of one spec.
type Gen struct {
	spec Spec
	hash string
}

// New returns a generator; passwordHash is stored for every user (see HashPassword).
func New(spec Spec, passwordHash string) *Gen { return &Gen{spec: spec, hash: passwordHash} }

// Spec returns the generator's spec.
func (g *Gen) Spec() Spec { return g.spec }

// Bundle is one account with everything that belongs to it.
type Bundle struct {
	Account      trade.Account
	Profile      trade.AccountProfile // Password left empty: see PasswordHash
	PasswordHash string
	Holdings     []trade.Holding
	Orders       []trade.Order // Orders[j] made Holdings[j]
}

// streams separate the random sequences of accounts and quotes.
const (
	streamAccount = 0
	streamQuote   = 1
)

func (g *Gen) rng(stream, i int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(g.spec.Seed), uint64(i)<<1|uint64(stream)))
}

// AccountID, HoldingID and OrderID number the generated rows densely from 1, so a store can
// tell loaded rows (id <= max) from rows a run added.
func AccountID(i int) int64             { return int64(i) + 1 }
func (g *Gen) HoldingID(i, j int) int64 { return int64(i)*int64(g.spec.Holdings) + int64(j) + 1 }

// Account generates account i (0 <= i < Accounts). The balance is the opening balance minus
// the loaded buy orders, so the audit invariant holds for loaded data too.
func (g *Gen) Account(i int) Bundle {
	r := g.rng(streamAccount, i)
	uid := UserID(i)
	created := Epoch.Add(-time.Duration(30*24*3600+r.Int64N(335*24*3600)) * time.Second)
	b := Bundle{
		Account: trade.Account{
			AccountID:    AccountID(i),
			UserID:       uid,
			OpenBalance:  OpenBalance,
			CreationDate: created,
			LoginCount:   r.Int64N(50),
			LogoutCount:  0,
		},
		Profile: trade.AccountProfile{
			UserID:     uid,
			FullName:   "first:" + strconv.Itoa(i) + " last:" + strconv.Itoa(i),
			Address:    strconv.Itoa(1+r.IntN(1000)) + " Oak St.",
			Email:      strings.ReplaceAll(uid, ":", "") + "@" + strconv.Itoa(r.IntN(100)) + ".com", // no colon: a valid @Email, as DayTrader generates it
			CreditCard: fmt.Sprintf("%03d-%04d-%04d-%04d", r.IntN(1000), r.IntN(10000), r.IntN(10000), r.IntN(10000)),
		},
		PasswordHash: g.hash,
	}
	b.Account.LogoutCount = r.Int64N(b.Account.LoginCount + 1)
	b.Account.LastLogin = created.Add(time.Duration(r.Int64N(29*24*3600)) * time.Second)
	balance := OpenBalance
	if g.spec.Holdings > 0 {
		b.Holdings = make([]trade.Holding, g.spec.Holdings)
		b.Orders = make([]trade.Order, g.spec.Holdings)
	}
	for j := 0; j < g.spec.Holdings; j++ {
		sym := r.IntN(g.spec.Quotes)
		q := g.Quote(sym)
		open := created.Add(time.Duration(j+1)*24*time.Hour + time.Duration(r.Int64N(12*3600))*time.Second)
		done := open.Add(time.Second)
		id := g.HoldingID(i, j)
		qty := 1 + r.Int64N(100)
		b.Holdings[j] = trade.Holding{HoldingID: id, AccountID: b.Account.AccountID, Symbol: q.Symbol,
			Quantity: qty, PurchasePrice: q.Open, PurchaseDate: done}
		b.Orders[j] = trade.Order{OrderID: id, AccountID: b.Account.AccountID, HoldingID: id, Symbol: q.Symbol,
			Type: trade.Buy, Status: trade.StatusCompleted, OpenDate: open, CompletionDate: done,
			Quantity: qty, Price: q.Open, Fee: trade.OrderFee}
		balance -= b.Orders[j].Total()
	}
	b.Account.Balance = balance
	return b
}

// Quote generates quote i (0 <= i < Quotes): an opening price in [1.00, 200.00], the current
// price one Trade price move away from it, and a trading volume.
func (g *Gen) Quote(i int) trade.Quote {
	r := g.rng(streamQuote, i)
	open := trade.Money(100 + r.Int64N(19901))
	price := trade.NewPrice(open, trade.PriceChangePercent(r))
	return trade.Quote{
		Symbol:      Symbol(i),
		CompanyName: "S:" + strconv.Itoa(i) + " Incorporated",
		Price:       price,
		Open:        open,
		Low:         min(open, price),
		High:        max(open, price),
		Change:      price - open,
		Volume:      r.Int64N(1_000_000),
	}
}
