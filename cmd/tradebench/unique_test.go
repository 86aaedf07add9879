package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestMoreUsersThanAccountsExit2: a drive with more virtual users than the scenario's unique
// accounts is a usage error (exit 2) and sends nothing.
func TestMoreUsersThanAccountsExit2(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	args := []string{"drive", "--target", srv.URL, "--scenario", "buysell", "--set", "users=10", "--users", "11", "-d", "1s", "--progress", "off"}
	if code := runMain(args); code != 2 || hits.Load() != 0 {
		t.Errorf("11 users on 10 accounts: exit %d, %d requests; want exit 2 and none", code, hits.Load())
	}
}
