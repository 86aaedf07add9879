package webtest

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade"
)

// keyRE finds a form's key: written bare (base64url, a dot, digits), as the quotes page must
// be small enough for one write.
var keyRE = regexp.MustCompile(`name=` + trade.IdempotencyField + ` value=([A-Za-z0-9_.-]+)>`)

// keys returns the idempotency keys of the forms on the last page, in page order.
func (b *browser) keys() []string {
	b.t.Helper()
	var ks []string
	for _, m := range keyRE.FindAllStringSubmatch(b.last, -1) {
		ks = append(ks, m[1])
	}
	if len(ks) == 0 {
		b.t.Fatalf("no idempotency key on the page:\n%s", clip(b.last))
	}
	return ks
}

// testSentTwice: a form sent twice with the key its page rendered (a double click, a proxy's
// retry) places once and answers the first outcome both times; so does a request sent twice
// with one Idempotency-Key header (the driver's way); the same form sent twice without a key
// (DayTrader's URLs) places twice, so the check would see a key that did nothing.
func (e *env) testSentTwice(t *testing.T) {
	b := e.browser(t)
	b.get("/trade/register")
	reg := url.Values{"Full Name": {"Twice"}, "snail mail": {"A"}, "email": {"twice@example.com"}, "user id": {"twice:1"},
		"passwd": {"pw"}, "confirm passwd": {"pw"}, "money": {"100000"}, "Credit Card Number": {"1"},
		trade.IdempotencyField: {b.keys()[0]}}
	for range 2 {
		code, body := b.post("/trade/register", reg)
		wantStatus(t, "register sent twice with its key", code, http.StatusOK)
		must(t, body, "Welcome twice:1")
	}
	orders := func() int {
		os, err := e.f.Truth.GetOrders(e.ctx, "twice:1", 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(os)
	}

	b.get("/trade/quotes?symbols=s:4,s:5")
	ks := b.keys()
	if len(ks) != 2 || ks[0] == ks[1] {
		t.Fatalf("the quotes page's two buy forms have keys %q: want one each, distinct", ks)
	}
	buy := url.Values{"symbol": {"s:4"}, "quantity": {"10"}, "csrf": {b.csrf()}, trade.IdempotencyField: {ks[0]}}
	_, first := b.post("/trade/buy", buy)
	_, second := b.post("/trade/buy", buy)
	if a, c := orderID(t, first), orderID(t, second); a != c || orders() != 1 {
		t.Fatalf("a buy form sent twice with its key: orders %d and %d, %d in all; want one", a, c, orders())
	}

	header := func(key string) int64 {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/trade/buy",
			strings.NewReader(url.Values{"symbol": {"s:5"}, "quantity": {"1"}, "csrf": {b.csrf()}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(trade.IdempotencyHeader, key)
		code, body := b.do(req)
		wantStatus(t, "buy with an Idempotency-Key header", code, http.StatusOK)
		return orderID(t, body)
	}
	k := trade.NewIdempotencyKey()
	if a, c := header(k), header(k); a != c || orders() != 2 {
		t.Fatalf("a buy sent twice with one Idempotency-Key: orders %d and %d, %d in all; want one more", a, c, orders())
	}

	unkeyed := url.Values{"symbol": {"s:4"}, "quantity": {"10"}, "csrf": {b.csrf()}}
	b.post("/trade/buy", unkeyed)
	b.post("/trade/buy", unkeyed)
	if n := orders(); n != 4 {
		t.Fatalf("a buy without a key sent twice: %d orders in all, want 4 (two more)", n)
	}

	bad := url.Values{"symbol": {"s:4"}, "quantity": {"10"}, "csrf": {b.csrf()}, trade.IdempotencyField: {"a key\x7f"}}
	code, _ := b.post("/trade/buy", bad)
	wantStatus(t, "buy with a malformed key", code, http.StatusBadRequest)
	if n := orders(); n != 4 {
		t.Errorf("a refused key placed an order: %d orders", n)
	}
}
