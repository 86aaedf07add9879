package clientopt_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// TestSetDefaultsAndValidate: zero fields take the one set of defaults, and every bad value is
// refused naming its field. Mutant clientopt-timeout-unchecked (Validate's Timeout case
// dropped) fails it.
func TestSetDefaultsAndValidate(t *testing.T) {
	var o clientopt.Options
	if err := o.Validate(); err != nil {
		t.Fatalf("zero options: %v", err)
	}
	o.SetDefaults()
	if o.Timeout != clientopt.DefaultTimeout || o.MaxConnsPerHost != clientopt.DefaultMaxConnsPerHost || o.GRPCConns != clientopt.DefaultGRPCConns {
		t.Fatalf("defaults: %+v", o)
	}
	if d := o.HTTPDialTimeout(); d != 5*time.Second {
		t.Fatalf("HTTP dial timeout %v, want min(10s, 5s)", d)
	}
	for field, bad := range map[string]clientopt.Options{
		"Timeout":         {Timeout: -time.Second},
		"DialTimeout":     {DialTimeout: -time.Second},
		"MaxConnsPerHost": {MaxConnsPerHost: clientopt.MaxMaxConnsPerHost + 1},
		"GRPCConns":       {GRPCConns: -1},
	} {
		var se *setting.Error
		if err := bad.Validate(); !errors.As(err, &se) || se.Field != field {
			t.Errorf("%+v: %v, want a setting.Error naming %s", bad, err, field)
		}
	}
}

// TestHTTPTransportSendsToken: the SOAP and REST clients' pool carries the service token.
func TestHTTPTransportSendsToken(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Get("Authorization") }))
	defer srv.Close()
	hc := &http.Client{Transport: clientopt.Options{Auth: svcauth.Client{Token: "tok"}}.HTTPTransport()}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a := <-got; a != "Bearer tok" {
		t.Fatalf("Authorization %q", a)
	}
}
