package verify

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tradebench/tradebench/internal/money"
	"github.com/tradebench/tradebench/report"
)

// The readers on the pages of two implementations of the application: Apache DayTrader 8's,
// as recorded (testdata/daytrader8, its README says how), and tradebench's own, fetched from a
// real tradebench web tier. Every reader the checks use is read on a page of each kind.

// dayTrader is a recorded page of Apache DayTrader 8.
func dayTrader(t *testing.T, name string) *doc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "daytrader8", name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	return parse(string(b))
}

// tbPages are tradebench's pages of one user who bought 10 s:1: home, account, portfolio,
// quotes, mksummary, the buy's confirmation, the login page and welcome.faces.
var tbPages struct {
	once  sync.Once
	pages map[string]*page
	uid   string
	err   error
}

func tradebench(t *testing.T, name string) *doc {
	t.Helper()
	tbPages.once.Do(func() {
		base, _ := url.Parse(brokenTarget(t, "", nil))
		cfg := Config{Target: base.String()}
		cfg.SetDefaults()
		v := &verifier{cfg: cfg, base: base, run: "read", ctx: context.Background(), hopt: httpOptions(cfg)}
		v.res = report.NewVerification(base.String())
		c := &ck{v: v}
		u, home, ok := v.register(c, "read")
		if !ok {
			tbPages.err = errString(c.Reason)
			return
		}
		tbPages.uid = u.uid
		tbPages.pages = map[string]*page{"home": &home}
		buy, ok := u.buy(c, "s:1", 10)
		if !ok {
			tbPages.err = errString(c.Reason)
			return
		}
		tbPages.pages["buy"] = &buy.page
		for _, n := range []string{"home", "account", "portfolio", "quotes&symbols=s:0,s:1,s:2", "mksummary"} {
			p, err := u.get(v.ctx, "/daytrader/app?action="+n)
			if err != nil {
				tbPages.err = err
				return
			}
			name, _, _ := strings.Cut(n, "&")
			tbPages.pages[name] = &p
		}
		w := v.newUser()
		for name, path := range map[string]string{"login": "/daytrader/app", "jsf-welcome": "/daytrader/welcome.faces"} {
			p, err := w.get(v.ctx, path)
			if err != nil {
				tbPages.err = err
				return
			}
			tbPages.pages[name] = &p
		}
	})
	if tbPages.err != nil {
		t.Fatal(tbPages.err)
	}
	return tbPages.pages[name].doc()
}

type errString string

func (e errString) Error() string { return string(e) }

func cents(s string) money.Money {
	m, err := money.Parse(s)
	if err != nil {
		panic(err)
	}
	return m
}

// Text is read as a browser lays it out: headings wrapped across lines, tabs and &nbsp; are one
// space; scripts are not text.
func TestReadText(t *testing.T) {
	d := parse("<TABLE><TR><TD><A href=x>order\n\t\t ID</A></TD><TD>Welcome&nbsp;\t uid:2</TD></TR></TABLE><script>var x = 'Welcome nobody';</script>")
	if got := d.lines; !slices.Equal(got, []string{"order ID", "Welcome uid:2"}) {
		t.Errorf("lines %q", got)
	}
	if !d.greets("uid:2") || d.greets("uid:20") || d.greets("nobody") || d.greets("uid") {
		t.Error("greets: wrong user")
	}
}

// The cash balance and the number of holdings: DayTrader's home page stacks its labels in one
// cell and its values in the next (with a spacer cell between), its account page puts them in
// neighbouring cells without a "$"; tradebench's home page puts them in the same cell, its
// account page in the next one.
func TestReadLabelledValues(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d     *doc
		label string
		want  money.Money
	}{
		{"daytrader home", dayTrader(t, "home"), "cash balance", cents("145951.40")},
		{"daytrader home", dayTrader(t, "home"), "total of holdings", cents("101501.00")},
		{"daytrader home", dayTrader(t, "home"), "sum of cash/holdings", cents("247452.40")},
		{"daytrader home", dayTrader(t, "home"), "opening balance", cents("247652.00")},
		{"daytrader account", dayTrader(t, "account"), "cash balance", cents("145951.40")},
		{"daytrader account", dayTrader(t, "account"), "opening balance", cents("247652.00")},
	} {
		got, err := tc.d.amount(tc.label)
		if err != nil || got != tc.want {
			t.Errorf("%s: %s = %v, %v; want %v", tc.name, tc.label, got, err, tc.want)
		}
	}
	if n, err := dayTrader(t, "home").count("number of holdings"); err != nil || n != 8 {
		t.Errorf("daytrader home: number of holdings %d, %v; want 8", n, err)
	}
	if n, err := dayTrader(t, "portfolio-after-buy").count("number of holdings"); err != nil || n != 9 {
		t.Errorf("daytrader portfolio: number of holdings %d, %v; want 9", n, err)
	}
	open := cents(openBalance)
	for _, name := range []string{"home", "account"} {
		d := tradebench(t, name)
		cash, err := d.amount("cash balance")
		if err != nil || cash >= open || cash < open-cents("10000") {
			t.Errorf("tradebench %s: cash balance %v, %v; want a little under %v after one buy", name, cash, err, open)
		}
		if o, err := d.amount("opening balance"); err != nil || o != open {
			t.Errorf("tradebench %s: opening balance %v, %v", name, o, err)
		}
	}
	if n, err := tradebench(t, "home").count("number of holdings"); err != nil || n != 1 {
		t.Errorf("tradebench home: number of holdings %d, %v; want 1", n, err)
	}
	if _, err := tradebench(t, "home").amount("sum of cash and holdings", "sum of cash/holdings"); err != nil {
		t.Errorf("tradebench home: %v", err)
	}
	if _, err := dayTrader(t, "login").amount("cash balance"); !isUnreadable(err) {
		t.Errorf("the login page has a cash balance: %v", err)
	}
}

func isUnreadable(err error) bool {
	_, ok := err.(*unreadableError)
	return ok
}

// The orders table with its wrapped headings ("order\n ID", "order\n status"): each order's
// id, status, symbol, quantity and fee — on DayTrader's order confirmation (no price column)
// and the orders its home page alerts (headings repeated before each row), and on tradebench's
// confirmation and account page.
func TestReadOrders(t *testing.T) {
	os, err := readOrders(dayTrader(t, "buy"))
	if err != nil || len(os) != 1 {
		t.Fatalf("daytrader confirmation: %+v, %v", os, err)
	}
	if o := os[0]; o.ID != 6004 || o.Status != "closed" || o.Type != "buy" || o.Symbol != "s:7" || o.Quantity != 10 || o.Fee != cents("24.95") || o.Priced {
		t.Errorf("daytrader confirmation: %+v", o)
	}
	if id, ok := orderID(dayTrader(t, "buy")); !ok || id != 6004 {
		t.Errorf("daytrader confirmation: order id %d, %v", id, ok)
	}
	if !submitted(dayTrader(t, "buy")) {
		t.Error("daytrader confirmation: not submitted")
	}
	if os, err := readOrders(dayTrader(t, "home")); err != nil || len(os) < 5 || os[0].ID != 3010 || os[1].ID != 3011 || os[0].Quantity != 81 {
		t.Errorf("daytrader home's completed orders: %+v, %v", os, err)
	}
	if os, err := readOrders(dayTrader(t, "account")); err != nil || len(os) != 0 {
		t.Errorf("daytrader account (no orders): %+v, %v", os, err)
	}
	for _, name := range []string{"buy", "account"} {
		os, err := readOrders(tradebench(t, name))
		if err != nil || len(os) != 1 {
			t.Fatalf("tradebench %s: %+v, %v", name, os, err)
		}
		if o := os[0]; o.Type != "buy" || o.Symbol != "s:1" || o.Quantity != 10 || o.Fee != orderFee || !o.Priced || o.Price <= 0 {
			t.Errorf("tradebench %s: %+v", name, o)
		}
	}
	if _, err := readOrders(dayTrader(t, "quotes")); !isUnreadable(err) {
		t.Errorf("the quotes page has an orders table: %v", err)
	}
}

// The holdings table: each holding with its sell link (DayTrader's app?action=sell&holdingID=N
// with a bare &) and the total market value in the total row, which spans columns.
func TestReadHoldings(t *testing.T) {
	d := dayTrader(t, "portfolio-after-buy")
	hs, err := readHoldings(d)
	if err != nil || len(hs) != 9 {
		t.Fatalf("daytrader portfolio: %d holdings, %v", len(hs), err)
	}
	h := hs[0]
	if h.ID != 3010 || h.Symbol != "s:318" || h.Quantity != 81 || h.PurchasePrice != cents("85.00") || h.CurrentPrice != cents("71.94") || !h.Priced || queryOf(h.sell).Get("holdingID") != "3010" {
		t.Errorf("daytrader holding: %+v", h)
	}
	if !slices.ContainsFunc(hs, func(h holding) bool { return h.ID == 6004 && h.Symbol == "s:7" && h.Quantity == 10 }) {
		t.Errorf("daytrader portfolio after the buy has no holding 6004 of 10 s:7: %+v", hs)
	}
	if v, err := totalOf(d, colMarketValue); err != nil || v != cents("99195.90") {
		t.Errorf("daytrader market value %v, %v", v, err)
	}
	tb := tradebench(t, "portfolio")
	hs, err = readHoldings(tb)
	if err != nil || len(hs) != 1 || hs[0].Symbol != "s:1" || hs[0].Quantity != 10 || queryOf(hs[0].sell).Get("holdingID") == "" {
		t.Fatalf("tradebench portfolio: %+v, %v", hs, err)
	}
	if v, err := totalOf(tb, colMarketValue); err != nil || v != hs[0].CurrentPrice.Times(10) {
		t.Errorf("tradebench market value %v, %v; want 10 × %v", v, err, hs[0].CurrentPrice)
	}
	// a row that sells by a form (tradebench's /trade/ pages): the form, with all it carries
	byForm := parse(`<table><tr><th>Holding ID</th><th>Symbol</th><th>Quantity</th><th>Purchase price</th><th>Current price</th><th>Trade</th></tr>` +
		`<tr><td>7</td><td>s:1</td><td>5</td><td>$1.00</td><td>$2.00</td><td><form method="post" action="sell"><input type="hidden" name="token" value="t0k">` +
		`<input type="hidden" name="holdingID" value="7"><button name="go" value="sell">Sell</button></form></td></tr></table>`)
	hs, err = readHoldings(byForm)
	if err != nil || len(hs) != 1 || hs[0].sellForm == nil || hs[0].sellForm.method != "POST" ||
		hs[0].sellForm.values("", nil).Encode() != "go=sell&holdingID=7&token=t0k" {
		t.Errorf("a holding sold by a form: %+v, %v", hs, err)
	}
}

// The quotes table: open and current price by symbol ("$ 9.24" on DayTrader's page).
func TestReadQuotes(t *testing.T) {
	qs, err := readQuotes(dayTrader(t, "quotes"))
	if err != nil || len(qs) != 5 || qs["s:0"].Open != cents("8.00") || qs["s:0"].Price != cents("9.24") || qs["s:2"].Price != cents("38.75") {
		t.Errorf("daytrader quotes: %+v, %v", qs, err)
	}
	qs, err = readQuotes(tradebench(t, "quotes"))
	if err != nil || len(qs) != 3 || qs["s:1"].Price <= 0 || qs["s:1"].Open <= 0 {
		t.Errorf("tradebench quotes: %+v, %v", qs, err)
	}
	for _, d := range []*doc{dayTrader(t, "quotes"), tradebench(t, "quotes")} {
		if _, ok := d.formWith("symbol=s:1", "quantity"); !ok || !d.says("Quotes and Trading") {
			t.Error("a quotes page without a buy form for s:1, or without its title")
		}
	}
}

// The market summary: DayTrader's page fills its lists by script, so a browser with JavaScript
// off sees none (not an unreadable page); tradebench's lists its movers.
func TestReadMovers(t *testing.T) {
	for _, h := range []string{"Top gainers", "Top losers"} {
		ms, err := readMovers(dayTrader(t, "mksummary"), h)
		if err != nil || len(ms) != 0 {
			t.Errorf("daytrader %s: %+v, %v", h, ms, err)
		}
		if _, err := readMovers(tradebench(t, "mksummary"), h); err != nil {
			t.Errorf("tradebench %s: %v", h, err)
		}
	}
	if _, err := readMovers(dayTrader(t, "account"), "Top gainers"); !isUnreadable(err) {
		t.Errorf("the account page has top gainers: %v", err)
	}
}

// The login forms: the servlet's (uid, passwd) and JSF's, every field it carries — DayTrader's
// login:uid, login:password, the button login:submit=Log in, login_SUBMIT=1 and the view state.
func TestReadForms(t *testing.T) {
	for _, d := range []*doc{dayTrader(t, "login"), tradebench(t, "login")} {
		if !isLoginPage(d) {
			t.Error("a login page not read as one")
		}
	}
	if isLoginPage(dayTrader(t, "home")) {
		t.Error("DayTrader's home page read as a login page")
	}
	f, ok := dayTrader(t, "jsf-welcome").formWith("login:uid", "login:password", "javax.faces.ViewState")
	if !ok || f.method != "POST" || f.action != "/daytrader/welcome.faces" {
		t.Fatalf("daytrader welcome.faces: %+v", f)
	}
	got := f.values("login:submit", url.Values{"login:uid": {"uid:2"}, "login:password": {"xxx"}})
	want := url.Values{"login:uid": {"uid:2"}, "login:password": {"xxx"}, "login:submit": {"Log in"}, "login_SUBMIT": {"1"},
		"javax.faces.ViewState": {"NjYwNTc0NDVGMTQ3QTU0NDAwMDAwMDAx"}}
	if got.Encode() != want.Encode() {
		t.Errorf("daytrader JSF login sends %v, want %v", got, want)
	}
	if _, ok := tradebench(t, "jsf-welcome").formWith("login:uid", "login:password", "javax.faces.ViewState"); !ok {
		t.Error("tradebench's welcome.faces has no JSF login form")
	}
	for _, name := range []string{"jsf-after-login", "jsf-tradehome"} {
		if !dayTrader(t, name).greets("uid:2") {
			t.Errorf("daytrader %s does not greet uid:2", name)
		}
	}
	if !dayTrader(t, "home").greets("uid:1") || !tradebench(t, "home").greets(tbPages.uid) {
		t.Error("a home page does not greet its user")
	}
	if f, ok := dayTrader(t, "register").formWith("user id", "passwd"); !ok || f.values("", nil).Get("money") != "100000" {
		t.Errorf("daytrader's registration form: %+v", f)
	}
}

// The readers on whatever a stranger sends: seeded with DayTrader's recorded pages and
// tradebench-like markup, every reader runs on the fuzzed page without panicking, and what a
// reader cannot find is an unreadable error, never another failure of the reader. (`go test`
// runs the seeds; scripts/fuzz runs it for a stated time.)
func FuzzReaders(f *testing.F) {
	for _, name := range []string{"home", "account", "portfolio-after-buy", "quotes", "mksummary", "buy", "jsf-welcome", "quantity-negative"} {
		b, err := os.ReadFile(filepath.Join("testdata", "daytrader8", name+".html"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`<table><tr><th colspan="99999999">Total</th><td>$1,000.00</td></tr></table><p>Cash balance: $-(5.00)</p>`)
	f.Fuzz(func(t *testing.T, body string) {
		d := parse(body)
		for _, label := range []string{"cash balance", "opening balance", "number of holdings"} {
			if _, err := d.amount(label); err != nil && !isUnreadable(err) {
				t.Errorf("amount %q: %v is not an unreadable error", label, err)
			}
		}
		readOrders(d)
		readHoldings(d)
		readQuotes(d)
		readMovers(d, "Top gainers")
		totalOf(d, colMarketValue)
		orderID(d)
		d.greets("uid:1")
		for _, f := range d.forms() {
			f.values("", url.Values{"uid": {"x"}})
		}
	})
}

// DayTrader's answer to a negative quantity, an HTTP 500 page with a stack trace, is no order
// confirmation, and its evidence excerpt is the page's words on one line, escaped.
func TestReadErrorPage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "daytrader8", "quantity-negative.html"))
	if err != nil {
		t.Fatal(err)
	}
	p := &page{req: "POST /daytrader/app", status: 500, body: string(b)}
	if submitted(p.doc()) {
		t.Error("the 500 page read as an order confirmation")
	}
	if _, ok := orderID(p.doc()); ok {
		t.Error("the 500 page names an order")
	}
	ev := p.evidence("a clear 4xx", "status 500")
	if !strings.Contains(ev.Excerpt, "Error") || strings.ContainsAny(ev.Excerpt, "\n\t<") || len(ev.Excerpt) > excerptLen+len("…") {
		t.Errorf("excerpt %q", ev.Excerpt)
	}
}
