package web

import (
	"testing"

	"github.com/tradebench/tradebench/trade"
)

func TestTemplatesParse(t *testing.T) {
	ps, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range pageNames {
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
