package rest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
)

type snapshot struct {
	acct     trade.Account
	holdings int
	orders   int
}

func snap(t *testing.T, svc trade.Service) snapshot {
	t.Helper()
	ctx := context.Background()
	a, err := svc.GetAccountData(ctx, testenv.User)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := svc.GetHoldings(ctx, testenv.User)
	if err != nil {
		t.Fatal(err)
	}
	os, err := svc.GetOrders(ctx, testenv.User, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{a, len(hs), len(os)}
}

// TestHostile sends malformed, mistyped, unknown and oversized requests: each gets an RFC 9457
// problem with the right status and code, and nothing in the database changes.
func TestHostile(t *testing.T) {
	svc := testenv.Service(t)
	srv := httptest.NewServer(NewHandler(svc, HandlerOptions{}))
	defer srv.Close()
	before := snap(t, svc)
	u := testenv.User
	const js = "application/json"
	cases := []struct {
		name, method, path, ctype, body string
		status                          int
		code                            string
	}{
		{"malformed JSON", "POST", "/api/v1/orders/buy", js, `{"userID":"` + u + `","symbol":"s:1","quantity":1`, 400, CodeMalformed},
		{"not JSON", "POST", "/api/v1/login", js, `userID=uid:0&password=xxx`, 400, CodeMalformed},
		{"empty body", "POST", "/api/v1/orders/buy", js, ``, 400, CodeMalformed},
		{"quantity as a string", "POST", "/api/v1/orders/buy", js, `{"userID":"` + u + `","symbol":"s:1","quantity":"1"}`, 400, CodeMalformed},
		{"fractional quantity", "POST", "/api/v1/orders/buy", js, `{"userID":"` + u + `","symbol":"s:1","quantity":1.5}`, 400, CodeMalformed},
		{"huge quantity", "POST", "/api/v1/orders/buy", js, `{"userID":"` + u + `","symbol":"s:1","quantity":1e30}`, 400, CodeMalformed},
		{"user as a number", "POST", "/api/v1/orders/sell", js, `{"userID":0,"holdingID":1,"quantity":0}`, 400, CodeMalformed},
		{"unknown field", "POST", "/api/v1/orders/buy", js, `{"userID":"` + u + `","symbol":"s:1","quantity":1,"price":"0.01"}`, 400, CodeMalformed},
		{"two objects", "POST", "/api/v1/orders/buy", js,
			`{"userID":"` + u + `","symbol":"s:1","quantity":1}{"userID":"` + u + `","symbol":"s:1","quantity":1}`, 400, CodeMalformed},
		{"an array", "POST", "/api/v1/orders/buy", js, `[{"userID":"` + u + `","symbol":"s:1","quantity":1}]`, 400, CodeMalformed},
		{"deep nesting", "POST", "/api/v1/orders/buy", js, `{"userID":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, 400,
			CodeMalformed},
		{"oversized", "POST", "/api/v1/orders/buy", js, `{"userID":"` + strings.Repeat("u", DefaultMaxBodyBytes) + `"}`, 413, CodeTooLarge},
		{"money as a number", "POST", "/api/v1/accounts", js, `{"userID":"h:1","password":"p","openBalance":100}`, 400, CodeMalformed},
		{"money with three places", "POST", "/api/v1/accounts", js, `{"userID":"h:2","password":"p","openBalance":"1.001"}`, 400, CodeMalformed},
		{"wrong media type", "POST", "/api/v1/orders/buy", "text/plain", `{"userID":"` + u + `","symbol":"s:1","quantity":1}`, 415, CodeMediaType},
		{"XML body", "POST", "/api/v1/login", "text/xml", `<login/>`, 415, CodeMediaType},
		{"unknown resource", "GET", "/api/v1/tables", "", ``, 404, CodeUnknownResource},
		{"outside the API", "GET", "/etc/passwd", "", ``, 404, CodeUnknownResource},
		{"too many segments", "GET", "/api/v1/a/b/c/d/e/f/g/h", "", ``, 404, CodeUnknownResource},
		{"wrong method", "GET", "/api/v1/orders/buy", "", ``, 405, CodeBadMethod},
		{"DELETE an account", "DELETE", "/api/v1/accounts/" + u, "", ``, 405, CodeBadMethod},
		{"non-numeric holding", "GET", "/api/v1/accounts/" + u + "/holdings/abc", "", ``, 400, CodeMalformed},
		{"non-numeric order", "POST", "/api/v1/orders/x/complete", "", ``, 400, CodeMalformed},
		{"non-numeric limit", "GET", "/api/v1/accounts/" + u + "/orders?limit=ten", "", ``, 400, CodeMalformed},
		{"bad query escape", "GET", "/api/v1/quotes?symbol=%zz", "", ``, 400, CodeMalformed},
		{"profile of another user", "PUT", "/api/v1/accounts/" + u + "/profile", js, `{"userID":"uid:1","fullName":"x"}`, 400, CodeMalformed},
		{"domain: invalid quantity", "POST", "/api/v1/orders/buy", js, `{"userID":"` + u + `","symbol":"s:1","quantity":0}`, 400,
			string(trade.CodeInvalid)},
		{"domain: wrong password", "POST", "/api/v1/login", js, `{"userID":"` + u + `","password":"bad"}`, 401, string(trade.CodeUnauthorized)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != ProblemContentType {
				t.Fatalf("Content-Type %q, want %s", ct, ProblemContentType)
			}
			var p Problem
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatalf("problem is not JSON: %v\n%s", err, body)
			}
			if p.Code != tc.code || p.Status != tc.status || p.Type != ProblemTypeBase+tc.code || p.Title == "" || p.Detail == "" {
				t.Errorf("problem %+v, want code %s status %d", p, tc.code, tc.status)
			}
			if tc.status == 405 && resp.Header.Get("Allow") == "" {
				t.Error("405 without an Allow header")
			}
		})
	}
	if after := snap(t, svc); after != before {
		t.Errorf("hostile requests changed the database:\nbefore %+v\nafter  %+v", before, after)
	}
	for _, id := range []string{"h:1", "h:2"} {
		if _, err := svc.GetAccountData(context.Background(), id); !trade.AsError(err).Is(trade.ErrNotFound) {
			t.Errorf("a rejected registration created %s: %v", id, err)
		}
	}
}

// TestOpenAPI: the served document is OpenAPI 3 JSON and documents every route the handler
// answers.
func TestOpenAPI(t *testing.T) {
	srv := httptest.NewServer(NewHandler(testenv.Service(t), HandlerOptions{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi.json: %v (version %q)", err, doc.OpenAPI)
	}
	h := &handler{}
	for path, methods := range doc.Paths {
		seg := strings.Split(strings.TrimPrefix(path, "/"), "/")
		for m := range methods {
			if m == "parameters" {
				continue
			}
			if f, _ := h.route(seg, strings.ToUpper(m)); f == nil {
				t.Errorf("OpenAPI documents %s %s, which the handler does not route", strings.ToUpper(m), path)
			}
		}
	}
	routes := []string{"POST login", "POST logout", "POST accounts", "GET accounts/{userID}", "GET accounts/{userID}/profile",
		"PUT accounts/{userID}/profile", "GET accounts/{userID}/holdings", "GET accounts/{userID}/holdings/{holdingID}",
		"GET accounts/{userID}/orders", "POST accounts/{userID}/closed-orders", "GET quotes", "GET quotes/{symbol}",
		"GET market-summary", "POST orders/buy", "POST orders/sell", "POST orders/{orderID}/complete"}
	for _, r := range routes {
		m, p, _ := strings.Cut(r, " ")
		if doc.Paths["/"+p][strings.ToLower(m)] == nil {
			t.Errorf("OpenAPI does not document %s", r)
		}
	}
}

// FuzzHandler: no method, path or body makes the API panic or answer 500; every error is a
// problem document. It runs against the real service, so a fuzzed request may succeed.
func FuzzHandler(f *testing.F) {
	svc := testenv.Service(f)
	h := NewHandler(svc, HandlerOptions{MaxBodyBytes: 4096})
	f.Add("POST", "/api/v1/orders/buy", `{"userID":"uid:1","symbol":"s:1","quantity":1}`)
	f.Add("POST", "/api/v1/orders/sell", `{"userID":"uid:1","holdingID":1,"quantity":0}`)
	f.Add("POST", "/api/v1/accounts", `{"userID":"f:1","password":"p","openBalance":"1.00"}`)
	f.Add("PUT", "/api/v1/accounts/uid:2/profile", `{"fullName":"x","password":"y"}`)
	f.Add("GET", "/api/v1/quotes?symbol=s:1&symbol=s:2", ``)
	f.Add("GET", "/api/v1/accounts/uid:1/orders?limit=-1", ``)
	f.Add("POST", "/api/v1/accounts//closed-orders", ``)
	f.Fuzz(func(t *testing.T, method, path, body string) {
		req, err := http.NewRequest(method, "http://h"+path, strings.NewReader(body))
		if err != nil || !strings.HasPrefix(req.URL.Path, "/") {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusNotImplemented {
			t.Fatalf("%s %s %q: HTTP %d %s", method, path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var p Problem
			if rec.Header().Get("Content-Type") != ProblemContentType || json.Unmarshal(rec.Body.Bytes(), &p) != nil || p.Code == "" {
				t.Fatalf("%s %s: error response is not a problem: %s", method, path, rec.Body)
			}
		}
	})
}
