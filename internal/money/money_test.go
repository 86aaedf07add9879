package money

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestParseAndString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Money
		text string
	}{
		{"123", 12300, "123.00"}, {"123.4", 12340, "123.40"}, {"123.45", 12345, "123.45"}, {"-0.5", -50, "-0.50"},
		{"$1,234.50", 123450, "1234.50"}, {".05", 5, "0.05"}, {"+7.", 700, "7.00"}, {" 0 ", 0, "0.00"},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want || got.String() != c.text {
			t.Errorf("Parse(%q) = %d %q (%v), want %d %q", c.in, got, got.String(), err, c.want, c.text)
		}
	}
	for _, bad := range []string{"", "-", ".", "1.234", "1e3", "12a", "NaN", "99999999999999", "1000000000001"} {
		if m, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", bad, m)
		}
	}
	if s := Money(math.MinInt64).String(); !strings.HasPrefix(s, "-92233720368547758.08") {
		t.Errorf("MinInt64 is %q", s)
	}
}

// Money travels as its decimal text in JSON, never as a float, and reads back exactly.
func TestJSON(t *testing.T) {
	b, err := json.Marshal(struct{ P Money }{Cents(1999)})
	if err != nil || string(b) != `{"P":"19.99"}` {
		t.Fatalf("%s %v", b, err)
	}
	var back struct{ P Money }
	if err := json.Unmarshal(b, &back); err != nil || back.P != 1999 {
		t.Fatalf("%+v %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"P":"1.999"}`), &back); err == nil {
		t.Error("three decimal places accepted")
	}
}

func TestArithmetic(t *testing.T) {
	if got := Cents(1050).Times(3); got != 3150 {
		t.Errorf("Times %d", got)
	}
	for _, c := range []struct {
		m    Money
		pct  int64
		want Money
	}{{1000, 107, 1070}, {5, 90, 5}, {15, 110, 17}, {-15, 110, -17}, {1, 50, 1}} {
		if got := c.m.ScalePercent(c.pct); got != c.want {
			t.Errorf("%d.ScalePercent(%d) = %d, want %d", c.m, c.pct, got, c.want)
		}
	}
}
