package driver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// TestRequestsCutByTheEndAreNoHits: a request still waiting for its answer when the run ends is
// neither a hit, nor a "no response" status, nor an error — only its transaction counts it, as
// stopped. The server here answers nothing until the client goes away, so every request is cut.
// (Mutant: record the hit before checking for the run's end in vuser, as before — Hits and the
// "no response" status become 2 and the test fails.)
func TestRequestsCutByTheEndAreNoHits(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers: the run's end cuts the request
	}))
	t.Cleanup(srv.Close)
	defer srv.CloseClientConnections()
	// the server never answers: the preflight would wait for it (its timeout) and refuse it
	res, err := Drive(context.Background(), Config{NoPreflight: true, URL: srv.URL + "/", Phases: Phases{Users: 2, Duration: 300 * time.Millisecond}, Timeout: time.Minute}, HTTP)
	var inv *report.InvalidError // nothing passed: the run is invalid, and its results still say why
	if res == nil || err != nil && !errors.As(err, &inv) {
		t.Fatal(err)
	}
	if res.Hits != 0 || len(res.StatusCodes) != 0 || res.Total.Errors != 0 {
		t.Errorf("cut requests counted: hits %d, status codes %v, errors %d; want none", res.Hits, res.StatusCodes, res.Total.Errors)
	}
	if res.Total.Stop != 2 {
		t.Errorf("stopped transactions %d, want 2 (one per user, counted apart)", res.Total.Stop)
	}
}
