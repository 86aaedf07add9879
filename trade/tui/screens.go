// Package tui is the smart client: the .NET StockTrader kit's desktop client re-made as a
// terminal UI (bubbletea) that talks to the business services directly — over SOAP, REST or
// gRPC, like the web tier does — instead of through the web pages. Its screens are login, home
// (account and market summary), portfolio (holdings with gains), quotes (live prices from the
// quote streamer), buy and sell (with confirmation) and account (orders and profile edit).
//
// The screens are plain text rendered from typed data (this file), so the interactive UI and
// the batch mode (`tradebench client --batch SCREEN`, one screen printed for scripts and tests)
// show the same thing.
package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/stream"
)

// Screen names, as --batch takes them and the footer shows them.
const (
	ScreenLogin     = "login"
	ScreenHome      = "home"
	ScreenPortfolio = "portfolio"
	ScreenQuotes    = "quotes"
	ScreenBuy       = "buy"
	ScreenSell      = "sell"
	ScreenAccount   = "account"
)

// BatchScreens are the screens --batch can print.
func BatchScreens() []string {
	return []string{ScreenHome, ScreenPortfolio, ScreenQuotes, ScreenAccount}
}

// DefaultSymbols are the quotes screen's symbols until the user types others (as the web tier's).
var DefaultSymbols = []string{"s:0", "s:1", "s:2", "s:3", "s:4"}

// money renders an amount as "$1234.50" / "-$12.00".
func money(m trade.Money) string {
	s := m.String()
	if strings.HasPrefix(s, "-") {
		return "-$" + s[1:]
	}
	return "$" + s
}

func signed(m trade.Money) string {
	if m > 0 {
		return "+" + money(m)
	}
	return money(m)
}

// Home is the home screen's data.
type Home struct {
	Account  trade.Account
	Holdings []trade.Holding
	Market   trade.MarketSummary
}

// LoadHome fetches the home screen.
func LoadHome(ctx context.Context, svc trade.Service, uid string) (Home, error) {
	var h Home
	var err error
	if h.Account, err = svc.GetAccountData(ctx, uid); err != nil {
		return h, err
	}
	if h.Holdings, err = svc.GetHoldings(ctx, uid); err != nil {
		return h, err
	}
	h.Market, err = svc.GetMarketSummary(ctx)
	return h, err
}

// Render is the home screen as text.
func (h Home) Render() string {
	var b strings.Builder
	a := h.Account
	var basis trade.Money
	for _, x := range h.Holdings {
		basis += x.PurchasePrice.Times(x.Quantity)
	}
	total := a.Balance + basis
	fmt.Fprintf(&b, "HOME — %s (account %d)\n\n", a.UserID, a.AccountID)
	fmt.Fprintf(&b, "Account summary\n")
	fmt.Fprintf(&b, "  Cash balance         %14s\n", money(a.Balance))
	fmt.Fprintf(&b, "  Holdings             %14d\n", len(h.Holdings))
	fmt.Fprintf(&b, "  Holdings (basis)     %14s\n", money(basis))
	fmt.Fprintf(&b, "  Cash and holdings    %14s\n", money(total))
	fmt.Fprintf(&b, "  Opening balance      %14s\n", money(a.OpenBalance))
	fmt.Fprintf(&b, "  Gain/(loss)          %14s\n", signed(total-a.OpenBalance))
	fmt.Fprintf(&b, "  Logins %d, last %s\n\n", a.LoginCount, a.LastLogin.Local().Format("2006-01-02 15:04"))
	b.WriteString(RenderMarket(h.Market))
	return b.String()
}

// RenderMarket is the market summary block (home screen; the summary stream updates it).
func RenderMarket(m trade.MarketSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Market summary (%s)\n", m.Date.Local().Format("15:04:05"))
	fmt.Fprintf(&b, "  TSIA %s (open %s, %s%%)   volume %d\n", money(m.TSIA), money(m.OpenTSIA), m.GainPercent(), m.Volume)
	row := func(label string, qs []trade.Quote) {
		fmt.Fprintf(&b, "  %-8s", label)
		for _, q := range qs {
			fmt.Fprintf(&b, " %s %s (%s)", q.Symbol, money(q.Price), signed(q.Change))
		}
		b.WriteString("\n")
	}
	row("Gainers", m.TopGainers)
	row("Losers", m.TopLosers)
	return b.String()
}

// Portfolio is the portfolio screen's data: holdings and their symbols' current quotes.
type Portfolio struct {
	Holdings []trade.Holding
	Quotes   map[string]trade.Quote
}

// LoadPortfolio fetches the holdings and their quotes.
func LoadPortfolio(ctx context.Context, svc trade.Service, uid string) (Portfolio, error) {
	p := Portfolio{Quotes: map[string]trade.Quote{}}
	var err error
	if p.Holdings, err = svc.GetHoldings(ctx, uid); err != nil {
		return p, err
	}
	var syms []string
	for _, h := range p.Holdings {
		if !slices.Contains(syms, h.Symbol) {
			syms = append(syms, h.Symbol)
		}
	}
	for len(syms) > 0 { // GetQuotes takes at most trade.MaxSymbols at once
		n := min(len(syms), trade.MaxSymbols)
		qs, err := svc.GetQuotes(ctx, syms[:n])
		if err != nil {
			return p, err
		}
		for _, q := range qs {
			p.Quotes[q.Symbol] = q
		}
		syms = syms[n:]
	}
	return p, nil
}

// Render is the portfolio as text; selected (-1 = none) marks a row with ">".
func (p Portfolio) Render(selected int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PORTFOLIO — %d holdings\n\n", len(p.Holdings))
	fmt.Fprintf(&b, "  %-9s %-8s %8s %11s %11s %13s %13s\n", "Holding", "Symbol", "Quantity", "Bought at", "Price", "Market value", "Gain/(loss)")
	var basis, value trade.Money
	for i, h := range p.Holdings {
		mark := " "
		if i == selected {
			mark = ">"
		}
		price := h.PurchasePrice
		if q, ok := p.Quotes[h.Symbol]; ok {
			price = q.Price
		}
		v, c := price.Times(h.Quantity), h.PurchasePrice.Times(h.Quantity)
		basis, value = basis+c, value+v
		fmt.Fprintf(&b, "%s %-9d %-8s %8d %11s %11s %13s %13s\n", mark, h.HoldingID, h.Symbol, h.Quantity, money(h.PurchasePrice), money(price),
			money(v), signed(v-c))
	}
	fmt.Fprintf(&b, "\n  Total: basis %s, market value %s, gain/(loss) %s\n", money(basis), money(value), signed(value-basis))
	return b.String()
}

// Quotes is the quotes screen's data.
type Quotes struct {
	Quotes  []trade.Quote
	Updated map[string]time.Time // when a live event last changed a symbol
}

// LoadQuotes fetches the quotes of symbols.
func LoadQuotes(ctx context.Context, svc trade.Service, symbols []string) (Quotes, error) {
	qs, err := svc.GetQuotes(ctx, symbols)
	return Quotes{Quotes: qs, Updated: map[string]time.Time{}}, err
}

// Render is the quotes as text; a symbol changed by a live event in the last 2 seconds is
// marked with "*".
func (q Quotes) Render(selected int, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-8s %-22s %10s %10s %10s %10s\n", "Symbol", "Company", "Open", "Price", "Change", "Volume")
	for i, x := range q.Quotes {
		mark := " "
		if i == selected {
			mark = ">"
		}
		live := " "
		if t, ok := q.Updated[x.Symbol]; ok && now.Sub(t) < 2*time.Second {
			live = "*"
		}
		fmt.Fprintf(&b, "%s %-8s %-22.22s %10s %10s%s%10s %10d\n", mark, x.Symbol, x.CompanyName, money(x.Open), money(x.Price), live,
			signed(x.Change), x.Volume)
	}
	return b.String()
}

// Apply folds a live change into the quotes; it reports whether the symbol is shown.
func (q *Quotes) Apply(ev stream.Quote, at time.Time) bool {
	for i := range q.Quotes {
		if x := &q.Quotes[i]; x.Symbol == ev.Symbol {
			if ev.Volume < x.Volume { // an older event than what is shown
				return true
			}
			x.Price, x.Change, x.Low, x.High, x.Volume = ev.Price, ev.Change, ev.Low, ev.High, ev.Volume
			q.Updated[ev.Symbol] = at
			return true
		}
	}
	return false
}

// Account is the account screen's data.
type Account struct {
	Account trade.Account
	Profile trade.AccountProfile
	Orders  []trade.Order
}

// AccountOrders is how many recent orders the account screen shows.
const AccountOrders = 10

// LoadAccount fetches the account, profile and recent orders.
func LoadAccount(ctx context.Context, svc trade.Service, uid string) (Account, error) {
	var a Account
	var err error
	if a.Account, err = svc.GetAccountData(ctx, uid); err != nil {
		return a, err
	}
	if a.Profile, err = svc.GetAccountProfileData(ctx, uid); err != nil {
		return a, err
	}
	a.Orders, err = svc.GetOrders(ctx, uid, AccountOrders)
	return a, err
}

// Render is the account screen as text.
func (a Account) Render() string {
	var b strings.Builder
	p := a.Profile
	fmt.Fprintf(&b, "ACCOUNT — %s (account %d)\n\n", p.UserID, a.Account.AccountID)
	fmt.Fprintf(&b, "  Full name    %s\n  Address      %s\n  Email        %s\n  Credit card  %s\n", p.FullName, p.Address, p.Email, p.CreditCard)
	fmt.Fprintf(&b, "  Balance %s, opened %s, logins %d, logouts %d\n\n", money(a.Account.Balance),
		a.Account.CreationDate.Local().Format("2006-01-02"), a.Account.LoginCount, a.Account.LogoutCount)
	fmt.Fprintf(&b, "Recent orders\n  %-8s %-5s %-10s %-8s %8s %11s %9s %11s\n", "Order", "Type", "Status", "Symbol", "Quantity", "Price", "Fee",
		"Total")
	for _, o := range a.Orders {
		fmt.Fprintf(&b, "  %-8d %-5s %-10s %-8s %8d %11s %9s %11s\n", o.OrderID, o.Type, o.Status, o.Symbol, o.Quantity, money(o.Price),
			money(o.Fee), money(o.Total()))
	}
	return b.String()
}

// Batch logs uid in, renders one screen as text and logs out: the client's script mode.
// symbols are the quotes screen's (nil = DefaultSymbols).
func Batch(ctx context.Context, svc trade.Service, screen, uid, password string, symbols []string) (string, error) {
	if !slices.Contains(BatchScreens(), screen) {
		return "", fmt.Errorf("unknown screen %q: want one of %s", screen, strings.Join(BatchScreens(), ", "))
	}
	if _, err := svc.Login(ctx, uid, password); err != nil {
		return "", err
	}
	defer svc.Logout(context.WithoutCancel(ctx), uid)
	switch screen {
	case ScreenHome:
		h, err := LoadHome(ctx, svc, uid)
		return h.Render(), err
	case ScreenPortfolio:
		p, err := LoadPortfolio(ctx, svc, uid)
		return p.Render(-1), err
	case ScreenQuotes:
		if len(symbols) == 0 {
			symbols = DefaultSymbols
		}
		q, err := LoadQuotes(ctx, svc, symbols)
		return "QUOTES\n\n" + q.Render(-1, time.Time{}), err
	default:
		a, err := LoadAccount(ctx, svc, uid)
		return a.Render(), err
	}
}
