package cacheperf

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRoutesAreTheMuxPatterns keeps the metrics' route labels in step with the mux: a page
// registered under another pattern would be counted as "other".
func TestRoutesAreTheMuxPatterns(t *testing.T) {
	mux := (&App{}).handler()
	for _, pat := range Routes {
		path := strings.TrimSuffix(strings.TrimPrefix(pat, "GET "), "{$}")
		if _, got := mux.Handler(httptest.NewRequest("GET", path, nil)); got != pat {
			t.Errorf("GET %s is served by pattern %q, want %q (listed in Routes)", path, got, pat)
		}
	}
}
