package web

import (
	"bytes"
	"context"
	"html"
	"math"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"
	nethtml "golang.org/x/net/html"

	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/trade"
)

func renderString(t *testing.T, c templ.Component) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCellsMatchFormatters holds the page cells (cells.go) to the string formatters they replace
// in the templates, on edge values: the pages read the same as when every value went through
// FormatMoney, Money.String, formatDate, strconv and html.EscapeString. Mutant: a leading group
// under 10 printed with a zero ("skip = 1" for "skip = 2": "$01.00"), scripts/mutants.d/web-cell-leading-zero.sed.
func TestCellsMatchFormatters(t *testing.T) {
	amounts := []trade.Money{0, 1, -1, 9, 10, 99, 100, 101, 999, 1000, 100000, 123456, -123456, 99999999,
		100000000, 123456789012, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for _, m := range amounts {
		// through templ.Component: the interface the generated code would box into
		if got, want := renderString(t, moneyText(m)), FormatMoney(m); got != want {
			t.Errorf("moneyText(%d) = %q, FormatMoney %q", int64(m), got, want)
		}
		if got, want := renderString(t, decimalText(m)), m.String(); got != want {
			t.Errorf("decimalText(%d) = %q, Money.String %q", int64(m), got, want)
		}
		if got, want := renderString(t, intText(m)), strconv.FormatInt(int64(m), 10); got != want {
			t.Errorf("intText(%d) = %q, want %q", int64(m), got, want)
		}
		if got, want := renderString(t, noted{amount: m, pct: "1.50", note: " (basis)"}), FormatMoney(m)+" (1.50%) (basis)"; got != want {
			t.Errorf("noted(%d) = %q, want %q", int64(m), got, want)
		}
		if got, want := renderString(t, priceRange{m, -m}), FormatMoney(m)+" – "+FormatMoney(-m); got != want {
			t.Errorf("priceRange(%d) = %q, want %q", int64(m), got, want)
		}
	}
	for _, tm := range []time.Time{{}, time.Unix(0, 0), time.Date(2026, 11, 27, 1, 2, 3, 999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), time.Date(999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(10000, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if got, want := renderString(t, dateText(tm)), formatDate(tm); got != want {
			t.Errorf("dateText(%v) = %q, formatDate %q", tm, got, want)
		}
	}
	for _, s := range []string{"", "s:1", "a&b", `<script>"x"</script>`, "it's", "ünïcode &amp; ", "&&&", "x<", ">y", "a b+c/d?e=f#g%h"} {
		if got, want := renderString(t, escText(s)), html.EscapeString(s); got != want {
			t.Errorf("escText(%q) = %q, want %q", s, got, want)
		}
		for _, dt := range []bool{true, false} {
			prefix := "/trade/quotes?symbols="
			if dt {
				prefix = "app?action=quotes&symbols="
			}
			want := `<a href="` + html.EscapeString(prefix+url.QueryEscape(s)) + `">` + html.EscapeString(s) + `</a>`
			if got := renderString(t, quoteLink{dt: dt, sym: s}); got != want {
				t.Errorf("quoteLink(%v, %q) = %q, want %q", dt, s, got, want)
			}
		}
	}
	for _, c := range []struct {
		cell signedCell
		want string
	}{
		{signedCell{sign: 5, amount: 456, dollars: true, field: "change"}, `<td class="n up" data-f="change">$4.56</td>`},
		{signedCell{sign: -5, amount: -123456, dollars: true, pct: "-2.50"}, `<td class="n down">-$1,234.56 (-2.50%)</td>`},
		{signedCell{amount: 123456}, `<td class="n">1234.56</td>`},
		{signedCell{sign: -5, amount: -123456, dollars: true, byColumn: true}, `<td class="down">-$1,234.56</td>`},
		{signedCell{amount: 0, dollars: true, byColumn: true}, `<td>$0.00</td>`},
	} {
		if got := renderString(t, c.cell); got != c.want {
			t.Errorf("%+v: %q, want %q", c.cell, got, c.want)
		}
	}
}

// TestRowsAllocateNothing: rendering a page's rows allocates nothing per row, so a page of 50
// orders (holdings, quotes) allocates exactly what a page of 5 does. Every cell of a row is a
// cell component; a `{ FormatMoney(…) }` expression in a row costs three allocations per row.
// Mutant: the order price written through FormatMoney again
// (scripts/mutants.d/web-row-allocates.sed).
func TestRowsAllocateNothing(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts are meaningless under the race detector; the run without it checks them")
	}
	when := time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC)
	orders := func(n int) []trade.Order {
		os := make([]trade.Order, n)
		for i := range os {
			os[i] = trade.Order{OrderID: int64(1000 + i), AccountID: 7, Symbol: "s:" + strconv.Itoa(i), Type: trade.Buy,
				Status: trade.StatusCompleted, OpenDate: when, CompletionDate: when, Quantity: 100, Price: 12345, Fee: 2495}
		}
		return os
	}
	rows := func(n int) []portfolioRow {
		rs := make([]portfolioRow, n)
		for i := range rs {
			h := trade.Holding{HoldingID: int64(i + 1), AccountID: 7, Symbol: "s:" + strconv.Itoa(i), Quantity: 10, PurchasePrice: 1000,
				PurchaseDate: when}
			rs[i] = portfolioRow{Holding: h, Quote: trade.Quote{Symbol: h.Symbol, Price: 1100}, Priced: true, Basis: 10000, Value: 11000,
				Gain: 1000, GainPct: "10.00"}
		}
		return rs
	}
	quotes := func(n int) []trade.Quote {
		qs := make([]trade.Quote, n)
		for i := range qs {
			qs[i] = trade.Quote{Symbol: "s:" + strconv.Itoa(i), CompanyName: "S Inc", Price: 1234, Open: 1200, Low: 1100, High: 1300, Change: 34,
				Volume: 1000}
		}
		return qs
	}
	for _, dt := range []bool{true, false} {
		v := &view{Brand: "DayTrader", Title: "DayTrader: Account", DT: dt, User: "uid:7", csrf: "token"}
		pages := map[string]func(n int) templ.Component{
			"account":   func(n int) templ.Component { return accountPage(v, accountData{Orders: orders(n), Limit: 100}) },
			"portfolio": func(n int) templ.Component { return portfolioPage(v, portfolioData{Rows: rows(n)}) },
			"quotes":    func(n int) templ.Component { return quotesPage(v, quotesData{Symbols: "s:1", Quotes: quotes(n)}) },
			"market": func(n int) templ.Component {
				return marketPage(v, trade.MarketSummary{TopGainers: quotes(n), TopLosers: quotes(n), Date: when})
			},
		}
		for name, page := range pages {
			few, many := page(5), page(50)
			var b bytes.Buffer
			allocs := func(c templ.Component) float64 {
				return testing.AllocsPerRun(50, func() {
					b.Reset()
					layout(v, c).Render(context.Background(), &b)
				})
			}
			if a5, a50 := allocs(few), allocs(many); a50 != a5 {
				t.Errorf("%s page (dt %v): %v allocations with 5 rows, %v with 50: rows allocate", name, dt, a5, a50)
			}
		}
	}
}

// TestAttrValueParsesBack: an attribute value written bare or quoted (attrValue) reads back as
// itself through an HTML parser, whatever it holds; the safe ones go bare, as the quotes page
// needs to fit one write. Mutant web-attr-always-bare (no quotes for any value) fails it.
func TestAttrValueParsesBack(t *testing.T) {
	for _, v := range []string{"s:1", "buy", "update_profile", "k-Z_9.12", "/trade/buy", "", "a b", `x"y`,
		"x'y", "a>b", "a=b", "`x", "a&amp;b", "a\tb", "ünï", `"><script>x</script>`} {
		var b bytes.Buffer
		c := newCellWriter(&b)
		c.s(`<input value=`)
		c.attrValue(v)
		c.s(`><p>after</p>`)
		doc, err := nethtml.Parse(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		var paras int
		var walk func(*nethtml.Node)
		walk = func(n *nethtml.Node) {
			if n.Type == nethtml.ElementNode && n.Data == "input" {
				for _, a := range n.Attr {
					got = append(got, a.Key+"="+a.Val)
				}
			}
			if n.Type == nethtml.ElementNode && n.Data == "p" {
				paras++
			}
			for k := n.FirstChild; k != nil; k = k.NextSibling {
				walk(k)
			}
		}
		walk(doc)
		if len(got) != 1 || got[0] != "value="+v || paras != 1 {
			t.Errorf("attrValue(%q) wrote %s: parsed as attributes %q and %d paragraphs, want value=%q and one", v, b.String(), got, paras, v)
		}
		bare := !strings.HasPrefix(b.String(), `<input value="`)
		if want := v == "s:1" || v == "buy" || v == "update_profile" || v == "k-Z_9.12"; bare != want {
			t.Errorf("attrValue(%q) wrote %s: bare %v, want %v", v, b.String(), bare, want)
		}
	}
}
