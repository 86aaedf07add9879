package verify

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all"
	"github.com/tradebench/tradebench/trade/web"
)

// Broken targets: tradebench's own web tier and business rules with one rule broken, by a
// trade.Service wrapped around the real one (the web tier cannot tell) or a handler wrapped around
// the real pages, each as a server on real TCP. Each must fail exactly the check of its rule,
// with evidence; where the audit reconciles the same money, it fails too, and the case says so.
// (The rules broken inside tradebench itself — no commission, orders never completed, a holding
// sellable by another user, a 500 on a negative quantity — are the mutants of TestVerifyTradebench.)

// brokenSvc is the real business service with one rule broken (by mode).
type brokenSvc struct {
	trade.Service
	mode string
	mu   sync.Mutex
	n    map[string]int // per user: buys or sells made
}

// ctxUser carries a user id a request named (uid= or userID=): the target that trusts it.
type ctxUser struct{}

func (b *brokenSvc) count(uid string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n[uid]
}

func (b *brokenSvc) add(uid string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n[uid]++
}

func (b *brokenSvc) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	if b.mode == "balance" {
		r.OpenBalance -= trade.Cents(100) // a dollar short of what was registered
	}
	return b.Service.Register(ctx, r)
}

func (b *brokenSvc) GetAccountData(ctx context.Context, uid string) (trade.Account, error) {
	a, err := b.Service.GetAccountData(ctx, uid)
	switch b.mode {
	case "buy-twice-fee": // each buy charged the commission twice
		a.Balance -= trade.OrderFee.Times(int64(b.count(uid)))
	case "sell-short": // each sale's proceeds a dollar short
		a.Balance -= trade.Cents(100).Times(int64(b.count(uid)))
	}
	return a, err
}

func (b *brokenSvc) Buy(ctx context.Context, uid, sym string, q int64) (trade.Order, error) {
	o, err := b.Service.Buy(ctx, uid, sym, q)
	if err == nil && b.mode == "buy-twice-fee" {
		b.add(uid)
	}
	if te := trade.AsError(err); te != nil && te.Code == trade.CodeNotFound && b.mode == "symbol-500" {
		return o, errors.New("quote lookup failed") // a system fault: a 500
	}
	return o, err
}

func (b *brokenSvc) Sell(ctx context.Context, uid string, id, q int64) (trade.Order, error) {
	if b.mode == "holding-500" && id > 1e15 {
		return trade.Order{}, errors.New("holding id out of range") // a system fault: a 500
	}
	o, err := b.Service.Sell(ctx, uid, id, q)
	if err == nil && b.mode == "sell-short" {
		b.add(uid)
	}
	return o, err
}

func (b *brokenSvc) Logout(ctx context.Context, uid string) error {
	if b.mode == "logout-noop" {
		return nil // the logout is never recorded: the session's stamp stays current
	}
	return b.Service.Logout(ctx, uid)
}

func (b *brokenSvc) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	switch b.mode {
	case "profile-lost":
		return p, nil // "updated", but nothing is stored
	case "profile-idor":
		if u, ok := ctx.Value(ctxUser{}).(string); ok {
			p.UserID = u
		}
	}
	return b.Service.UpdateAccountProfile(ctx, p)
}

func (b *brokenSvc) GetHoldings(ctx context.Context, uid string) ([]trade.Holding, error) {
	if u, ok := ctx.Value(ctxUser{}).(string); ok && b.mode == "see-idor" {
		uid = u
	}
	hs, err := b.Service.GetHoldings(ctx, uid)
	if b.mode == "holding-price" {
		hs = slices.Clone(hs)
		for i := range hs {
			hs[i].PurchasePrice += trade.Cents(1) // recorded a cent above the price the buy paid
		}
	}
	return hs, err
}

func (b *brokenSvc) GetOrders(ctx context.Context, uid string, limit int) ([]trade.Order, error) {
	if u, ok := ctx.Value(ctxUser{}).(string); ok && b.mode == "see-idor" {
		uid = u
	}
	return b.Service.GetOrders(ctx, uid, limit)
}

func (b *brokenSvc) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	m, err := b.Service.GetMarketSummary(ctx)
	if b.mode == "summary-change" {
		m.TopGainers = slices.Clone(m.TopGainers)
		for i := range m.TopGainers {
			m.TopGainers[i].Change += trade.Cents(1) // a change that is not price − open
		}
	}
	return m, err
}

// trustNamedUser is the insecure direct object reference: a request naming a user (uid= or
// userID=, in the query or the form) is served as that user. The form's userID is taken out,
// so the web tier's own check of it does not see it.
func trustNamedUser(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err == nil {
			for _, k := range []string{"userID", "uid"} {
				if u := r.Form.Get(k); u != "" && r.Form.Get("action") != "login" {
					r = r.WithContext(context.WithValue(r.Context(), ctxUser{}, u))
					r.Form.Del(k)
					r.PostForm.Del(k)
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// cacheHome serves each session's home page from a cache: the first one it rendered.
func cacheHome(h http.Handler) http.Handler {
	var mu sync.Mutex
	cache := map[string][]byte{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Query().Get("action") != "home" {
			h.ServeHTTP(w, r)
			return
		}
		key := r.Header.Get("Cookie")
		mu.Lock()
		b, ok := cache[key]
		mu.Unlock()
		if !ok {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			b = rec.Body.Bytes()
			mu.Lock()
			cache[key] = b
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
}

// rewritePage changes the body of one action's pages with re → repl.
func rewritePage(action string, re *regexp.Regexp, repl string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("action") != action {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				if k != "Content-Length" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			w.Write(re.ReplaceAll(rec.Body.Bytes(), []byte(repl)))
		})
	}
}

// fiveHundredOnLong answers a profile update with an overlong full name with a 500.
func fiveHundredOnLong(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err == nil && r.Form.Get("action") == "update_profile" && len(r.Form.Get("fullname")) > 1000 {
			http.Error(w, "java.lang.StringIndexOutOfBoundsException", http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// brokenTarget serves tradebench's pages over the business service broken by mode, wrapped in mw.
func brokenTarget(t *testing.T, mode string, mw func(http.Handler) http.Handler) string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "broken.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 10, 120
	if err := st.Load(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	var svc trade.Service = business.New(st, business.Options{})
	if mode != "" {
		svc = &brokenSvc{Service: svc, mode: mode, n: map[string]int{}}
	}
	h, err := web.New(svc, web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mw != nil {
		h = mw(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Each broken target fails exactly its check, with evidence, and nothing else (but the audit
// where it reconciles the same money). The control case, nothing broken, proves the harness
// itself passes.
func TestBrokenTargetsFailTheirCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		mw   func(http.Handler) http.Handler
		want []string
	}{
		{name: "nothing broken"},
		{name: "opening balance not as registered", mode: "balance", want: []string{"business.register_balance"}},
		{name: "commission charged twice on a buy", mode: "buy-twice-fee", want: []string{"business.buy", "audit.money_conserved"}},
		{name: "a sale's proceeds short", mode: "sell-short", want: []string{"business.sell", "audit.money_conserved"}},
		// mutant verify-buy-holding-unchecked: business.buy not checking the holding it created
		{name: "a holding recorded at the wrong price", mode: "holding-price", want: []string{"business.buy"}},
		{name: "home page from a stale cache", mw: cacheHome, want: []string{"business.pages_current"}},
		{name: "portfolio total not the holdings' value", mw: rewritePage("portfolio",
			regexp.MustCompile(`(<th colspan="6">Total</th><td class="n">[^<]*</td><td class="n">)[^<]*`), "${1}$$1.00"),
			want: []string{"business.account_totals"}},
		{name: "market summary's change not price − open", mode: "summary-change", want: []string{"business.market_summary"}},
		{name: "profile update not stored", mode: "profile-lost", want: []string{"business.profile_update"}},
		{name: "logout does not end the session", mode: "logout-noop", want: []string{"business.logout"}},
		{name: "another user's pages by naming the user", mode: "see-idor", mw: trustNamedUser, want: []string{"isolation.see_other"}},
		{name: "another user's profile by naming the user", mode: "profile-idor", mw: trustNamedUser, want: []string{"isolation.profile_other"}},
		{name: "a 500 on an unknown symbol", mode: "symbol-500", want: []string{"input.symbol"}},
		{name: "a 500 on a huge holding id", mode: "holding-500", want: []string{"input.holding_id"}},
		{name: "a 500 on an overlong field", mw: fiveHundredOnLong, want: []string{"input.fields"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := verifyTarget(t, brokenTarget(t, tc.mode, tc.mw))
			got := res.Failed()
			if !slices.Equal(got, tc.want) {
				var b bytes.Buffer
				res.WriteSummary(&b)
				t.Fatalf("failed %v, want exactly %v\n%s", got, tc.want, b.String())
			}
			for _, c := range res.Checks {
				if slices.Contains(tc.want, c.ID) && (c.Reason == "" || len(c.Evidence) == 0 && !strings.HasPrefix(c.ID, "business.account_totals")) {
					t.Errorf("%s failed without its reason and evidence: %+v", c.ID, c)
				}
			}
			if len(tc.want) > 0 && (res.Conformant || res.Err() == nil) {
				t.Errorf("a broken target is conformant: %s", res.Headline())
			}
		})
	}
}
