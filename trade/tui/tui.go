package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
	"github.com/tradebench/tradebench/trade/stream"
)

// Options configure the interactive client.
type Options struct {
	// Describe is the connection line of the header, e.g. "rest → 127.0.0.1:8081".
	Describe string
	// Stream is a web tier's base URL whose quote stream keeps the quotes screen live; empty
	// refreshes the quotes every PollEvery instead.
	Stream string
	// PollEvery is the quotes screen's refresh without a stream (0 = 2s).
	PollEvery time.Duration
	// CallTimeout bounds each service call (0 = clientopt.DefaultTimeout).
	CallTimeout time.Duration
	// UserID and Password prefill the login screen; Symbols the quotes screen (nil =
	// DefaultSymbols).
	UserID, Password string
	Symbols          []string
}

// SetDefaults fills the zero options that have a default.
func (o *Options) SetDefaults() {
	if o.PollEvery <= 0 {
		o.PollEvery = 2 * time.Second
	}
	if o.CallTimeout == 0 { // a negative one is Config.Validate's to refuse
		o.CallTimeout = clientopt.DefaultTimeout // the remote clients' one call timeout
	}
	if len(o.Symbols) == 0 {
		o.Symbols = DefaultSymbols
	}
}

// New returns the interactive client's bubbletea model over svc.
func New(svc trade.Service, opts Options) tea.Model {
	opts.SetDefaults()
	m := &model{svc: svc, opts: opts, screen: ScreenLogin}
	m.login = form{fields: []field{{label: "User ID", value: opts.UserID}, {label: "Password", value: opts.Password, mask: true}}}
	m.symbols = field{label: "Symbols", value: strings.Join(opts.Symbols, ",")}
	if opts.Stream != "" {
		m.live = newLive(opts.Stream)
	}
	return m
}

// field is one line of text input.
type field struct {
	label, value string
	mask         bool
}

func (f *field) key(k tea.KeyPressMsg) {
	switch {
	case k.Code == tea.KeyBackspace:
		if r := []rune(f.value); len(r) > 0 {
			f.value = string(r[:len(r)-1])
		}
	case k.Text != "" && k.Mod&^tea.ModShift == 0:
		if len(f.value) < 200 {
			f.value += k.Text
		}
	}
}

func (f field) render(focused bool) string {
	v := f.value
	if f.mask {
		v = strings.Repeat("*", len([]rune(v)))
	}
	cur, mark := "", " "
	if focused {
		cur, mark = "_", ">"
	}
	return fmt.Sprintf("%s %-12s [%s%s]", mark, f.label, v, cur)
}

// form is fields with one focused; Tab moves between them.
type form struct {
	fields []field
	focus  int
}

func (f *form) key(k tea.KeyPressMsg) {
	switch k.String() {
	case "tab", "down":
		f.focus = (f.focus + 1) % len(f.fields)
	case "shift+tab", "up":
		f.focus = (f.focus + len(f.fields) - 1) % len(f.fields)
	default:
		f.fields[f.focus].key(k)
	}
}

func (f form) render() string {
	var b strings.Builder
	for i, x := range f.fields {
		b.WriteString(x.render(i == f.focus) + "\n")
	}
	return b.String()
}

func (f form) value(i int) string { return strings.TrimSpace(f.fields[i].value) }

// confirm is a pending action awaiting y/n.
type confirm struct {
	question string
	yes      func() tea.Cmd
}

type model struct {
	svc  trade.Service
	opts Options
	live *live
	// listening: a command waits on the live channel or the poll timer already (one at a time)
	listening bool

	screen    string
	uid       string
	status    string
	statusErr bool
	busy      bool

	login     form
	home      *Home
	portfolio *Portfolio
	pSel      int
	quotes    *Quotes
	qSel      int
	symbols   field
	editSyms  bool
	buy       form
	sell      form
	selling   trade.Holding
	account   *Account
	profile   *form // non-nil while editing the profile
	confirm   *confirm
	back      string // where buy and sell return to
}

// messages from commands
type (
	errMsg       struct{ err error }
	loggedInMsg  struct{ acct trade.Account }
	loggedOutMsg struct{}
	homeMsg      Home
	portfolioMsg Portfolio
	quotesMsg    Quotes
	accountMsg   Account
	orderMsg     trade.Order
	profileMsg   trade.AccountProfile
	liveMsg      stream.Quote
	pollMsg      struct{}
)

func (m *model) Init() tea.Cmd { return nil }

// call runs f off the UI goroutine with the call timeout.
func (m *model) call(f func(ctx context.Context) tea.Msg) tea.Cmd {
	m.busy = true
	to := m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), to)
		defer cancel()
		return f(ctx)
	}
}

func orErr(err error, msg tea.Msg) tea.Msg {
	if err != nil {
		return errMsg{err}
	}
	return msg
}

// describeErr is the status line for a failed call: the service's own message for a user's
// mistake (insufficient funds, unknown symbol), a plain "unreachable" for a lost host.
func describeErr(err error) string {
	if te := trade.AsError(err); te != nil {
		return te.Message
	}
	if errors.Is(err, trade.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return "the business services are unreachable: " + oneLine(err.Error(), 120)
	}
	return oneLine(err.Error(), 160)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func (m *model) setStatus(s string, isErr bool) { m.status, m.statusErr = s, isErr }

func (m *model) waitLive() tea.Cmd {
	if m.live == nil {
		return nil
	}
	ch := m.live.out
	return func() tea.Msg { return liveMsg(<-ch) }
}

func (m *model) poll() tea.Cmd {
	return tea.Tick(m.opts.PollEvery, func(time.Time) tea.Msg { return pollMsg{} })
}

// go to a screen and load it.
func (m *model) show(screen string) tea.Cmd {
	m.screen, m.confirm, m.profile, m.editSyms = screen, nil, nil, false
	uid := m.uid
	switch screen {
	case ScreenHome:
		return m.call(func(ctx context.Context) tea.Msg { h, err := LoadHome(ctx, m.svc, uid); return orErr(err, homeMsg(h)) })
	case ScreenPortfolio:
		return m.call(func(ctx context.Context) tea.Msg {
			p, err := LoadPortfolio(ctx, m.svc, uid)
			return orErr(err, portfolioMsg(p))
		})
	case ScreenQuotes:
		return m.loadQuotes()
	case ScreenAccount:
		return m.call(func(ctx context.Context) tea.Msg {
			a, err := LoadAccount(ctx, m.svc, uid)
			return orErr(err, accountMsg(a))
		})
	}
	return nil
}

func (m *model) symbolList() []string {
	var out []string
	for s := range strings.SplitSeq(m.symbols.value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (m *model) loadQuotes() tea.Cmd {
	syms := m.symbolList()
	if len(syms) == 0 {
		m.setStatus("give at least one symbol, e.g. s:1,s:2", true)
		return nil
	}
	if m.live != nil {
		m.live.follow(syms)
	}
	return m.call(func(ctx context.Context) tea.Msg {
		q, err := LoadQuotes(ctx, m.svc, syms)
		return orErr(err, quotesMsg(q))
	})
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			if m.live != nil {
				m.live.stop()
			}
			return m, tea.Quit
		}
		return m, m.key(msg)
	case errMsg:
		m.busy = false
		m.setStatus(describeErr(msg.err), true)
	case loggedInMsg:
		m.busy = false
		m.uid = msg.acct.UserID
		m.setStatus(fmt.Sprintf("logged in as %s", m.uid), false)
		var listen tea.Cmd
		if !m.listening {
			m.listening = true
			listen = tea.Batch(m.waitLive(), m.pollIfNoLive())
		}
		return m, tea.Batch(m.show(ScreenHome), listen)
	case loggedOutMsg:
		m.busy = false
		m.uid, m.home, m.portfolio, m.quotes, m.account = "", nil, nil, nil, nil
		m.screen = ScreenLogin
		m.login.fields[1].value = ""
		m.setStatus("logged out", false)
	case homeMsg:
		m.busy = false
		h := Home(msg)
		m.home = &h
	case portfolioMsg:
		m.busy = false
		p := Portfolio(msg)
		m.portfolio, m.pSel = &p, min(m.pSel, max(len(p.Holdings)-1, 0))
	case quotesMsg:
		m.busy = false
		q := Quotes(msg)
		m.quotes, m.qSel = &q, min(m.qSel, max(len(q.Quotes)-1, 0))
	case accountMsg:
		m.busy = false
		a := Account(msg)
		m.account = &a
	case orderMsg:
		m.busy = false
		o := trade.Order(msg)
		verb := "Bought"
		if o.Type == trade.Sell {
			verb = "Sold"
		}
		m.setStatus(fmt.Sprintf("%s %d %s at %s (fee %s): order %d %s", verb, o.Quantity, o.Symbol, money(o.Price), money(o.Fee), o.OrderID,
			o.Status), false)
		return m, m.show(m.back)
	case profileMsg:
		m.busy = false
		m.setStatus("profile updated", false)
		return m, m.show(ScreenAccount)
	case liveMsg:
		if m.quotes != nil {
			m.quotes.Apply(stream.Quote(msg), time.Now())
		}
		return m, m.waitLive()
	case pollMsg:
		var cmd tea.Cmd
		if m.uid != "" && m.screen == ScreenQuotes && !m.busy && !m.editSyms && m.confirm == nil {
			cmd = m.loadQuotes()
		}
		return m, tea.Batch(cmd, m.poll())
	}
	return m, nil
}

func (m *model) pollIfNoLive() tea.Cmd {
	if m.live != nil {
		return nil
	}
	return m.poll()
}

// key handles a key press: a pending confirmation first, then an open form, then the screen keys.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.confirm != nil:
		return m.confirmKey(k.String())
	case m.screen == ScreenLogin:
		return m.loginKey(k)
	case m.screen == ScreenBuy:
		return m.buyKey(k)
	case m.screen == ScreenSell:
		return m.sellKey(k)
	case m.profile != nil:
		return m.profileKey(k)
	case m.editSyms:
		return m.symbolsKey(k)
	}
	return m.screenKey(k.String())
}

// confirmKey answers the pending confirmation: y or Enter runs it, n or Esc drops it; other
// keys wait.
func (m *model) confirmKey(s string) tea.Cmd {
	switch s {
	case "y", "Y", "enter":
		c := m.confirm
		m.confirm = nil
		return c.yes()
	case "n", "N", "esc":
		m.confirm = nil
		m.setStatus("cancelled", false)
	}
	return nil
}

// loginKey is the login form's keys: Enter logs in, the rest edit the form.
func (m *model) loginKey(k tea.KeyPressMsg) tea.Cmd {
	if k.String() == "enter" {
		uid, pw := m.login.value(0), m.login.fields[1].value
		m.setStatus("logging in…", false)
		return m.call(func(ctx context.Context) tea.Msg {
			a, err := m.svc.Login(ctx, uid, pw)
			return orErr(err, loggedInMsg{a})
		})
	}
	m.login.key(k)
	return nil
}

// symbolsKey edits the quotes screen's symbol list: Enter loads the quotes, Esc or Tab leaves
// the list as it is.
func (m *model) symbolsKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		m.editSyms = false
		return m.loadQuotes()
	case "esc", "tab":
		m.editSyms = false
	default:
		m.symbols.key(k)
	}
	return nil
}

// screenKey is a key on a screen with no form open: the screens' letters, buy, sell, edit,
// logout, and the arrows that move the selection.
func (m *model) screenKey(s string) tea.Cmd {
	switch s {
	case "h":
		return m.show(ScreenHome)
	case "p":
		return m.show(ScreenPortfolio)
	case "q":
		return m.show(ScreenQuotes)
	case "a":
		return m.show(ScreenAccount)
	case "r":
		return m.show(m.screen)
	case "b":
		m.startBuy()
	case "s":
		m.startSell()
	case "l":
		uid := m.uid
		return m.call(func(ctx context.Context) tea.Msg { return orErr(m.svc.Logout(ctx, uid), loggedOutMsg{}) })
	case "tab", "/":
		if m.screen == ScreenQuotes {
			m.editSyms = true
		}
	case "e":
		if m.screen == ScreenAccount && m.account != nil {
			p := m.account.Profile
			m.profile = &form{fields: []field{{label: "Full name", value: p.FullName}, {label: "Address", value: p.Address},
				{label: "Email", value: p.Email}, {label: "Credit card", value: p.CreditCard}, {label: "New password", mask: true}}}
		}
	case "up", "down":
		d := 1
		if s == "up" {
			d = -1
		}
		switch {
		case m.screen == ScreenQuotes && m.quotes != nil:
			m.qSel = clamp(m.qSel+d, len(m.quotes.Quotes))
		case m.screen == ScreenPortfolio && m.portfolio != nil:
			m.pSel = clamp(m.pSel+d, len(m.portfolio.Holdings))
		}
	}
	return nil
}

// startBuy opens the buy form, for the selected quote's symbol on the quotes screen.
func (m *model) startBuy() {
	sym := ""
	if m.screen == ScreenQuotes && m.quotes != nil && m.qSel < len(m.quotes.Quotes) {
		sym = m.quotes.Quotes[m.qSel].Symbol
	}
	m.back = m.screen
	m.buy = form{fields: []field{{label: "Symbol", value: sym}, {label: "Quantity", value: "100"}}}
	if sym != "" {
		m.buy.focus = 1
	}
	m.screen = ScreenBuy
}

// startSell opens the sell form for the holding selected on the portfolio screen (only there).
func (m *model) startSell() {
	if m.screen != ScreenPortfolio || m.portfolio == nil || len(m.portfolio.Holdings) == 0 {
		m.setStatus("choose a holding on the portfolio screen (p), then press s", true)
		return
	}
	m.back = ScreenPortfolio
	m.selling = m.portfolio.Holdings[m.pSel]
	m.sell = form{fields: []field{{label: "Quantity", value: strconv.FormatInt(m.selling.Quantity, 10)}}}
	m.screen = ScreenSell
}

func clamp(i, n int) int { return max(0, min(i, n-1)) }

// formKey is a buy or sell form's keys: Esc goes back, Enter submits, the rest edit the form.
func (m *model) formKey(k tea.KeyPressMsg, f *form, submit func() tea.Cmd) tea.Cmd {
	switch k.String() {
	case "esc":
		m.screen = m.back
		return nil
	case "enter":
		return submit()
	}
	f.key(k)
	return nil
}

func (m *model) buyKey(k tea.KeyPressMsg) tea.Cmd {
	return m.formKey(k, &m.buy, func() tea.Cmd {
		sym := m.buy.value(0)
		qty, err := strconv.ParseInt(m.buy.value(1), 10, 64)
		if sym == "" || err != nil || qty < 1 {
			m.setStatus("give a symbol and a whole number of shares (at least 1)", true)
			return nil
		}
		q := fmt.Sprintf("Buy %d shares of %s (fee %s)? y/n", qty, sym, money(trade.OrderFee))
		if m.quotes != nil {
			for _, x := range m.quotes.Quotes {
				if x.Symbol == sym {
					q = fmt.Sprintf("Buy %d shares of %s at about %s, %s with the fee %s? y/n", qty, sym, money(x.Price),
						money(x.Price.Times(qty)+trade.OrderFee), money(trade.OrderFee))
				}
			}
		}
		uid := m.uid
		m.confirm = &confirm{question: q, yes: func() tea.Cmd {
			m.setStatus("buying…", false)
			return m.call(func(ctx context.Context) tea.Msg {
				o, err := m.svc.Buy(ctx, uid, sym, qty)
				return orErr(err, orderMsg(o))
			})
		}}
		return nil
	})
}

func (m *model) sellKey(k tea.KeyPressMsg) tea.Cmd {
	return m.formKey(k, &m.sell, func() tea.Cmd {
		h := m.selling
		qty, err := strconv.ParseInt(m.sell.value(0), 10, 64)
		if err != nil || qty < 0 || qty > h.Quantity {
			m.setStatus(fmt.Sprintf("give a whole number of shares between 1 and %d (0 = all)", h.Quantity), true)
			return nil
		}
		if qty == 0 {
			qty = h.Quantity
		}
		uid := m.uid
		m.confirm = &confirm{question: fmt.Sprintf("Sell %d of %d shares of %s (holding %d, fee %s)? y/n", qty, h.Quantity, h.Symbol, h.HoldingID,
			money(trade.OrderFee)),
			yes: func() tea.Cmd {
				m.setStatus("selling…", false)
				return m.call(func(ctx context.Context) tea.Msg {
					o, err := m.svc.Sell(ctx, uid, h.HoldingID, qty)
					return orErr(err, orderMsg(o))
				})
			}}
		return nil
	})
}

func (m *model) profileKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc":
		m.profile = nil
		return nil
	case "enter":
		f := m.profile
		p := trade.AccountProfile{UserID: m.uid, FullName: f.value(0), Address: f.value(1), Email: f.value(2), CreditCard: f.value(3),
			Password: f.fields[4].value}
		m.profile = nil
		return m.call(func(ctx context.Context) tea.Msg {
			out, err := m.svc.UpdateAccountProfile(ctx, p)
			return orErr(err, profileMsg(out))
		})
	}
	m.profile.key(k)
	return nil
}

// footerKeys is the one key per screen (and the screen's own keys) shown at the bottom.
func (m *model) footerKeys() string {
	if m.screen == ScreenLogin {
		return "Tab next field · Enter log in · ctrl+c quit"
	}
	if m.confirm != nil {
		return "y confirm · n cancel"
	}
	keys := "h home · p portfolio · q quotes · b buy · s sell · a account · l logout · r refresh · ctrl+c quit"
	switch {
	case m.screen == ScreenBuy || m.screen == ScreenSell || m.profile != nil:
		return "Tab next field · Enter submit · Esc cancel"
	case m.editSyms:
		return "type symbols · Enter get quotes · Esc done"
	case m.screen == ScreenQuotes:
		keys += "\n↑↓ select · Tab edit symbols · b buy the selected symbol"
	case m.screen == ScreenPortfolio:
		keys += "\n↑↓ select · s sell the selected holding"
	case m.screen == ScreenAccount:
		keys += "\ne edit profile"
	}
	return keys
}

func (m *model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	return v
}

// render is the screen as text: the title, the current screen, the status and the keys.
func (m *model) render() string {
	var b strings.Builder
	who := "not logged in"
	if m.uid != "" {
		who = m.uid
	}
	liveState := "live quotes: polling every " + m.opts.PollEvery.String()
	if m.live != nil {
		liveState = "live quotes: streaming from " + m.opts.Stream
	}
	fmt.Fprintf(&b, "tradebench smart client — %s — %s — %s\n%s\n", who, m.opts.Describe, liveState, strings.Repeat("─", 78))
	switch m.screen {
	case ScreenLogin:
		b.WriteString("LOGIN\n\n" + m.login.render())
	case ScreenHome:
		if m.home != nil {
			b.WriteString(m.home.Render())
		}
	case ScreenPortfolio:
		if m.portfolio != nil {
			b.WriteString(m.portfolio.Render(m.pSel))
		}
	case ScreenQuotes:
		b.WriteString("QUOTES\n\n" + m.symbols.render(m.editSyms) + "\n\n")
		if m.quotes != nil {
			b.WriteString(m.quotes.Render(m.qSel, time.Now()))
		}
	case ScreenBuy:
		b.WriteString("BUY\n\n" + m.buy.render())
	case ScreenSell:
		h := m.selling
		fmt.Fprintf(&b, "SELL — holding %d: %d shares of %s bought at %s\n\n", h.HoldingID, h.Quantity, h.Symbol, money(h.PurchasePrice))
		b.WriteString(m.sell.render())
	case ScreenAccount:
		if m.profile != nil {
			b.WriteString("EDIT PROFILE (empty password = unchanged)\n\n" + m.profile.render())
		} else if m.account != nil {
			b.WriteString(m.account.Render())
		}
	}
	b.WriteString("\n")
	if m.confirm != nil {
		b.WriteString("\n" + m.confirm.question + "\n")
	}
	st := m.status
	if m.statusErr {
		st = "ERROR: " + st
	}
	if m.busy {
		st += " …"
	}
	fmt.Fprintf(&b, "%s\n%s\n%s\n", strings.Repeat("─", 78), st, m.footerKeys())
	return b.String()
}
