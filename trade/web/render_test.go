package web

import (
	"math"
	"testing"

	"github.com/tradebench/tradebench/trade"
)

func TestTemplatesParse(t *testing.T) {
	ps, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append([]string{configTemplate}, prefixed("jsf_", jsfPageNames)...) {
		if ps.t[n] == nil {
			t.Errorf("page %s missing", n)
		}
	}
}

func TestFormatMoney(t *testing.T) {
	for _, c := range []struct {
		m    trade.Money
		want string
	}{
		{0, "$0.00"}, {5, "$0.05"}, {123456, "$1,234.56"}, {-100, "-$1.00"},
		{100000000, "$1,000,000.00"}, {99999, "$999.99"}, {-123456789, "-$1,234,567.89"},
		{-5, "-$0.05"}, {100000, "$1,000.00"}, {math.MaxInt64, "$92,233,720,368,547,758.07"},
		{math.MinInt64, "-$92,233,720,368,547,758.08"},
	} {
		if got := FormatMoney(c.m); got != c.want {
			t.Errorf("FormatMoney(%d) = %q, want %q", c.m, got, c.want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		num, den trade.Money
		want     string
	}{
		{0, 0, "0.00"}, {100, 1000, "10.00"}, {-250, 1000, "-25.00"}, {1, 3, "33.33"},
	} {
		if got := percent(c.num, c.den); got != c.want {
			t.Errorf("percent(%d, %d) = %q, want %q", c.num, c.den, got, c.want)
		}
	}
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}
