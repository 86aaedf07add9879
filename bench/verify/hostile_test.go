package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/report"
)

// A hostile target cannot grow verify's memory with cookies: a target setting a new cookie on
// every answer leaves each visitor holding at most the driver's jar limit (verify talks through
// internal/httpc and its bounds).
func TestVerifyCookieDrip(t *testing.T) {
	var n atomic.Int64
	drip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: fmt.Sprintf("c%d", n.Add(1)), Value: strings.Repeat("x", 100)})
		w.Write([]byte("<html><body>hello</body></html>"))
	}))
	defer drip.Close()
	base, _ := url.Parse(drip.URL)
	cfg := Config{Target: drip.URL}
	cfg.SetDefaults()
	v := &verifier{cfg: cfg, base: base, ctx: context.Background(), hopt: httpOptions(cfg)}
	u := v.newUser()
	defer u.close()
	for range 3 * httpc.MaxCookiesPerHost {
		if _, err := u.get(v.ctx, "/daytrader/app"); err != nil {
			t.Fatal(err)
		}
	}
	if got := u.c.Jar.Len(); got > httpc.MaxCookiesPerHost || n.Load() < 3*httpc.MaxCookiesPerHost {
		t.Fatalf("after %d cookies set, a visitor holds %d (the bound is %d)", n.Load(), got, httpc.MaxCookiesPerHost)
	}
}

// A target that answers its login page and then lets every request run to its timeout cannot
// hold verify beyond its Deadline: the run ends with a *DeadlineError, and the checks not made
// say the deadline passed. (Mutant verify-no-deadline: the deadline never set.)
func TestVerifyDeadline(t *testing.T) {
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/daytrader/app" && r.URL.RawQuery == "" {
			w.Write([]byte("<html><body>login</body></html>"))
			return
		}
		<-r.Context().Done() // never answers
	}))
	defer stall.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // only if the deadline does not hold
	defer cancel()
	res, err := Run(ctx, Config{Target: stall.URL, Timeout: time.Minute, Deadline: 300 * time.Millisecond}, NewRun())
	var de *DeadlineError
	if !errors.As(err, &de) || res == nil {
		var b strings.Builder
		if res != nil {
			res.WriteSummary(&b)
		}
		t.Fatalf("Run: %v, want a *DeadlineError\n%s", err, b.String())
	}
	last := res.Checks[len(res.Checks)-1]
	if last.Outcome != report.CheckSkip || !strings.Contains(last.Reason, "deadline") {
		t.Errorf("the last check %s: %s %q, want skipped for the deadline", last.ID, last.Outcome, last.Reason)
	}
}

// slowSummary answers the first reads of the market summary with empty lists, as an
// implementation that computes its summary on a timer does right after it starts.
func slowSummary(h http.Handler) http.Handler {
	var reads atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("action") == "mksummary" && reads.Add(1) <= 3 {
			empty := `<table><tr><th>Symbol</th><th>Price</th><th>Change</th></tr><tr><td colspan="3">none</td></tr></table>`
			fmt.Fprintf(w, "<html><body><h1>Market summary</h1><h2>Top gainers</h2>%s<h2>Top losers</h2>%s</body></html>", empty, empty)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// The market summary is read again while it lists nothing, within the summary bound, before the
// check decides: a summary filled a moment later is checked, not skipped. (Mutant
// verify-summary-no-poll: one read only.)
func TestVerifySummaryPolled(t *testing.T) {
	res := verifyTarget(t, brokenTarget(t, "", slowSummary))
	for _, c := range res.Checks {
		if c.ID == "business.market_summary" && c.Outcome != report.CheckPass {
			t.Fatalf("business.market_summary %s: %s", c.Outcome, c.Reason)
		}
	}
}
