// Package smartclient is the 2007 paper's "smart client" load: virtual users that drive the
// business services directly — over SOAP, REST or gRPC, as `tradebench client` does — instead
// of through the web pages. Each iteration walks the client's screens with the same calls the
// client makes (package trade/tui): login, home, quotes, buy, portfolio, sell, account,
// logout, one transaction per screen. It is a load.Workload, so the load engine runs it like any
// scenario (closed or open model, phases) and reports it the same way.
//
// It stands above the driver and the system under test: the driver imports neither.
package smartclient

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/tui"
)

// Name is the scenario's name in results files and on the command line (drive --scenario client);
// Workload is the results' workload name (HTTP scenarios are "http");
// Description is its line in the scenario list (drive --list).
const (
	Name        = "client"
	Workload    = "smart-client"
	Description = "The smart client: virtual users that call the business services directly (--access soap|rest|grpc --bsl ADDR), screen by screen: login, home, quotes, buy, portfolio, sell, account, logout."
)

// DefaultThink is the pause after each screen, as the built-in scenarios' think time.
const DefaultThink = time.Second

// Settings are the workload's own settings in a results file (Settings.Workload).
type Settings struct {
	Access string `json:"access"` // soap, rest or grpc
	BSL    string `json:"bsl"`    // the services host's endpoint
}

// Config is the workload.
type Config struct {
	Service trade.Service // a remote client (remote.Dial); shared by all virtual users
	// Accounts and Quotes are the loaded data set's sizes: users log in as uid:0…uid:Accounts-1
	// (virtual user k as uid:k, so no two users share an account) and trade s:0…s:Quotes-1.
	Accounts, Quotes int
	Password         string
	Quantity         int64          // shares per buy (0 = 100)
	Think            scenario.Think // pause after each screen
	Seed             uint64         // the symbols' random draws (0 = random)
}

// Validate reports a configuration that cannot run users users at once.
func (c Config) Validate(users int) error {
	switch {
	case c.Service == nil:
		return fmt.Errorf("smart client load: no service")
	case c.Accounts < 1 || c.Quotes < 1:
		return fmt.Errorf("smart client load: accounts and quotes must be at least 1, got %d and %d", c.Accounts, c.Quotes)
	case users > c.Accounts:
		return fmt.Errorf("%d virtual users but %d accounts: each user needs an account of its own", users, c.Accounts)
	}
	return nil
}

// SetDefaults fills the zero fields: 100 shares per buy, a random seed. The Config is then the
// load.Workload.
func (c *Config) SetDefaults() {
	if c.Quantity <= 0 {
		c.Quantity = 100
	}
	if c.Seed == 0 {
		c.Seed = rand.Uint64()
	}
}

// NewUser implements load.Workload.
func (c Config) NewUser(id int) load.User {
	return &user{c: c, uid: fmt.Sprintf("uid:%d", id%c.Accounts), rng: rand.New(rand.NewPCG(c.Seed, uint64(id))), sold: map[int64]bool{}}
}

type user struct {
	c   Config
	uid string
	rng *rand.Rand
	// sold are holdings this user already placed a sell for: in the async order modes a sold
	// holding stays in the portfolio until its order completes, and selling it again would
	// fail as a real user would not.
	sold map[int64]bool
}

func (u *user) symbol() string { return fmt.Sprintf("s:%d", u.rng.IntN(u.c.Quotes)) }

// Iterate walks the screens once. A failed screen ends the iteration (logged in or not, the
// next one starts with a login).
func (u *user) Iterate(ctx context.Context, it *load.Iteration) error {
	svc := u.c.Service
	var holdings []trade.Holding
	steps := []struct {
		name string
		f    func(ctx context.Context) error
	}{
		{"login", func(ctx context.Context) error { _, err := svc.Login(ctx, u.uid, u.c.Password); return err }},
		{"home", func(ctx context.Context) error { _, err := tui.LoadHome(ctx, svc, u.uid); return err }},
		{"quotes", func(ctx context.Context) error {
			_, err := tui.LoadQuotes(ctx, svc, []string{u.symbol(), u.symbol(), u.symbol(), u.symbol()})
			return err
		}},
		{"buy", func(ctx context.Context) error { _, err := svc.Buy(ctx, u.uid, u.symbol(), u.c.Quantity); return err }},
		{"portfolio", func(ctx context.Context) error {
			p, err := tui.LoadPortfolio(ctx, svc, u.uid)
			holdings = p.Holdings
			return err
		}},
		{"sell", func(ctx context.Context) error {
			// the newest holding not sold yet: the one just bought (sync orders), so the
			// account keeps its size
			var h trade.Holding
			shown := map[int64]bool{}
			for _, x := range holdings {
				shown[x.HoldingID] = true
				if !u.sold[x.HoldingID] && x.HoldingID > h.HoldingID {
					h = x
				}
			}
			for id := range u.sold { // forget sells that have completed
				if !shown[id] {
					delete(u.sold, id)
				}
			}
			if h.HoldingID == 0 {
				return nil
			}
			u.sold[h.HoldingID] = true
			_, err := svc.Sell(ctx, u.uid, h.HoldingID, 0)
			return err
		}},
		{"account", func(ctx context.Context) error { _, err := tui.LoadAccount(ctx, svc, u.uid); return err }},
		{"logout", func(ctx context.Context) error { return svc.Logout(ctx, u.uid) }},
	}
	for _, s := range steps {
		start := it.StartTx()
		err := s.f(ctx)
		it.Done(s.name, start, err) // a failure is the transaction's; it ends the iteration
		if err != nil || it.Think(ctx, u.c.Think.Sample(u.rng)) != nil {
			return nil
		}
	}
	return nil
}
