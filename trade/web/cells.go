package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// Cells: the pages' per-row values, written straight into the page buffer as templ components
// (`@moneyText(o.Price)` in pages.templ). A `{ expr }` in templ costs a string for the value,
// fmt.Sprint's copy of it (templ.JoinStringErrs) and an escaping pass; a `class={ … }`
// attribute a CSS class processor. The account page has ten such values per order row, and
// they were a third of its allocations. These write only constant strings and substrings of
// their input: no allocation per cell (TestPageAllocations). Each is a concrete type, so the
// generated `.Render(ctx, buf)` call boxes nothing.
//
// What they write is what the `{ expr }` they replace wrote: the same text, HTML-escaped the
// same way (html.EscapeString's five characters); TestCellsMatchFormatters holds them to the
// string formatters (FormatMoney, Money.String, formatDate, strconv) on edge values.

// digits3 is "000001002…999": the three digits of n are digits3[3n : 3n+3].
var digits3 = func() string {
	b := make([]byte, 3000)
	for i := range 1000 {
		b[3*i], b[3*i+1], b[3*i+2] = byte('0'+i/100), byte('0'+i/10%10), byte('0'+i%10)
	}
	return string(b)
}()

// cellWriter writes strings to a page until the first error, which it keeps.
type cellWriter struct {
	w   io.StringWriter
	err error
}

func newCellWriter(w io.Writer) cellWriter {
	if sw, ok := w.(io.StringWriter); ok {
		return cellWriter{w: sw}
	}
	return cellWriter{w: stringWriter{w}}
}

// stringWriter adapts a writer without WriteString (never the templ buffer; for completeness).
type stringWriter struct{ io.Writer }

func (s stringWriter) WriteString(str string) (int, error) { return s.Write([]byte(str)) }

func (c *cellWriter) s(str string) {
	if c.err == nil && str != "" {
		_, c.err = c.w.WriteString(str)
	}
}

// two writes n (0–99) as two digits.
func (c *cellWriter) two(n int) { c.s(digits3[3*n+1 : 3*n+3]) }

// uint writes u in decimal, with thousands separators if commas.
func (c *cellWriter) uint(u uint64, commas bool) {
	var groups [7]uint16 // 2^64 has 20 digits: 7 groups of three
	n := 0
	for {
		groups[n] = uint16(u % 1000)
		n++
		u /= 1000
		if u == 0 {
			break
		}
	}
	g := int(groups[n-1])
	skip := 0
	switch {
	case g < 10:
		skip = 2
	case g < 100:
		skip = 1
	}
	c.s(digits3[3*g+skip : 3*g+3])
	for i := n - 2; i >= 0; i-- {
		if commas {
			c.s(",")
		}
		g = int(groups[i])
		c.s(digits3[3*g : 3*g+3])
	}
}

// amount writes m as FormatMoney ("$1,234.50", "-$12.00") or, without dollars, as
// Money.String ("1234.50", "-12.00").
func (c *cellWriter) amount(m trade.Money, dollars bool) {
	u := uint64(m)
	if m < 0 {
		c.s("-")
		u = -u // two's complement: exact for every int64, the minimum included
	}
	if dollars {
		c.s("$")
	}
	c.uint(u/100, dollars)
	c.s(".")
	c.two(int(u % 100))
}

// escaped writes s HTML-escaped as html.EscapeString (and so templ) does: & ' < > " become
// &amp; &#39; &lt; &gt; &#34;.
func (c *cellWriter) escaped(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&#34;"
		default:
			continue
		}
		c.s(s[last:i])
		c.s(esc)
		last = i + 1
	}
	c.s(s[last:])
}

const hexUpper = "0123456789ABCDEF"

// queryEscaped writes s as url.QueryEscape does. Its output is letters, digits, -_.~+ and %XX
// only, so it needs no HTML escaping in an attribute.
func (c *cellWriter) queryEscaped(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		if 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '-' || b == '_' || b == '.' || b == '~' {
			continue
		}
		c.s(s[last:i])
		if b == ' ' {
			c.s("+")
		} else {
			c.s("%")
			c.s(hexUpper[b>>4 : b>>4+1])
			c.s(hexUpper[b&15 : b&15+1])
		}
		last = i + 1
	}
	c.s(s[last:])
}

// date writes t as formatDate does.
func (c *cellWriter) date(t time.Time) {
	if t.IsZero() {
		c.s("—")
		return
	}
	t = t.Local()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		c.s(formatDate(t)) // never in practice: time.Format's allocation is fine here
		return
	}
	hour, min, sec := t.Clock()
	c.two(year / 100)
	c.two(year % 100)
	c.s("-")
	c.two(int(month))
	c.s("-")
	c.two(day)
	c.s(" ")
	c.two(hour)
	c.s(":")
	c.two(min)
	c.s(":")
	c.two(sec)
}

// moneyText is an amount as FormatMoney shows it: "$1,234.50".
type moneyText trade.Money

func (m moneyText) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	c.amount(trade.Money(m), true)
	return c.err
}

// decimalText is an amount as Money.String shows it: "1234.50" (the market summary's figures).
type decimalText trade.Money

func (m decimalText) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	c.amount(trade.Money(m), false)
	return c.err
}

// intText is an integer in decimal, no separators.
type intText int64

func (n intText) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	c.int(int64(n))
	return c.err
}

// dateText is a time as formatDate shows it: "2006-01-02 15:04:05", local time; "—" for none.
type dateText time.Time

func (t dateText) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	c.date(time.Time(t))
	return c.err
}

// escText is text, HTML-escaped.
type escText string

func (s escText) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	c.escaped(string(s))
	return c.err
}

// quoteLink is a link to the quotes page of one symbol, the symbol as its text:
// <a href="app?action=quotes&amp;symbols=s%3A3">s:3</a> (the /trade/ contract:
// /trade/quotes?symbols=…). The symbol is query-escaped, so the link has no scheme of its own.
type quoteLink struct {
	dt  bool
	sym string
}

func (l quoteLink) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	if l.dt {
		c.s(`<a href="app?action=quotes&amp;symbols=`)
	} else {
		c.s(`<a href="/trade/quotes?symbols=`)
	}
	c.queryEscaped(l.sym)
	c.s(`">`)
	c.escaped(l.sym)
	c.s(`</a>`)
	return c.err
}

// signedCell is a right-aligned number cell coloured by the sign of sign:
// <td class="n up" data-f="tsia">456.78</td>, class "n down" for a loss and "n" for neither.
// The text is the amount (FormatMoney's form if dollars, else Money.String's), then " (PCT%)"
// when pct is set.
type signedCell struct {
	sign    trade.Money
	amount  trade.Money
	dollars bool
	pct     string
	field   string // the data-f attribute (live.js updates the cell); "" for none
	// byColumn: the table right-aligns this column itself (the quotes table), so the cell
	// carries only its sign's class: "up", "down", or none.
	byColumn bool
}

func (sc signedCell) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	switch {
	case sc.byColumn && sc.sign > 0:
		c.s(`<td class="up"`)
	case sc.byColumn && sc.sign < 0:
		c.s(`<td class="down"`)
	case sc.byColumn:
		c.s(`<td`)
	case sc.sign > 0:
		c.s(`<td class="n up"`)
	case sc.sign < 0:
		c.s(`<td class="n down"`)
	default:
		c.s(`<td class="n"`)
	}
	if sc.field != "" {
		c.s(` data-f="`)
		c.escaped(sc.field)
		c.s(`"`)
	}
	c.s(">")
	c.amount(sc.amount, sc.dollars)
	c.percent(sc.pct)
	c.s("</td>")
	return c.err
}

// noted is an amount as FormatMoney shows it, then " (PCT%)" when pct is set, then note.
type noted struct {
	amount trade.Money
	pct    string
	note   string
}

func (n noted) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	c.amount(n.amount, true)
	c.percent(n.pct)
	c.escaped(n.note)
	return c.err
}

// percent writes " (PCT%)" when pct is set.
func (c *cellWriter) percent(pct string) {
	if pct != "" {
		c.s(" (")
		c.escaped(pct)
		c.s("%)")
	}
}

// priceRange is a quote's day range as FormatMoney shows amounts: "$1.00 – $2.00".
type priceRange struct{ low, high trade.Money }

func (r priceRange) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	c.amount(r.low, true)
	c.s(" – ")
	c.amount(r.high, true)
	return c.err
}

// hiddenFields is the hidden form fields a POST form needs: the DayTrader action, or the /trade/
// session's CSRF token, and an idempotency key for a form that changes state. The action and the
// key are written unquoted where HTML allows it (attrValue): a DayTrader quotes page repeats
// them per buy form, and it must fit net/http's one write (docs/benchmarks.md).
type hiddenFields struct {
	v      *view
	action string
}

func hidden(v *view, action string) hiddenFields { return hiddenFields{v, action} }

func (h hiddenFields) Render(_ context.Context, w io.Writer) error {
	c := newCellWriter(w)
	if h.v.DT {
		c.s(`<input type=hidden name=action value=`)
		c.attrValue(h.action)
		c.s(`>`)
	} else if h.v.csrf != "" {
		c.s(`<input type="hidden" name="csrf" value="`) // as the token's readers match it
		c.escaped(h.v.csrf)
		c.s(`">`)
	}
	switch h.action {
	case "buy", "sell", "update_profile", "register":
		// A fresh key per form: the form sent twice (a double click, a proxy's retry) is
		// placed once (trade.WithIdempotencyKey). URL-safe base64, a dot and digits: neither
		// escaping nor quotes. DayTrader's pages carry it too: a name, a page prefix and
		// the bare value keep five of them within its quotes page's one write.
		if h.v.keyPrefix == "" {
			h.v.keyPrefix = newKeyPrefix()
		}
		h.v.keys++
		c.s(`<input type=hidden name=` + trade.IdempotencyField + ` value=`)
		c.s(h.v.keyPrefix)
		c.s(".")
		c.uint(h.v.keys, false)
		c.s(`>`)
	}
	return c.err
}

// newKeyPrefix is a page's idempotency key prefix: 96 random bits, base64url (16 characters).
// Keys are stored unique across all accounts (the requestkeys primary key), so the odds that
// matter are any two pages' prefixes matching: about n²/2^97 for n pages, 2^-37 for a billion
// (2^30) pages — and a match places nothing wrongly unless both pages send the same form
// number. The rest of a 128-bit key would cost the quotes page its one write.
func newKeyPrefix() string {
	var b [12]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// attrValue writes an attribute value after its '=': bare when it is non-empty and made only
// of letters, digits and "-._:" (no character HTML would end an unquoted value on, and none to
// escape), else quoted and escaped.
func (c *cellWriter) attrValue(v string) {
	bare := v != ""
	for i := 0; i < len(v) && bare; i++ {
		b := v[i]
		bare = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
			b == '-' || b == '.' || b == '_' || b == ':'
	}
	if bare {
		c.s(v)
		return
	}
	c.s(`"`)
	c.escaped(v)
	c.s(`"`)
}

// sellControl is a holding's sell control: DayTrader's link, written as its scripts match it
// (a bare & in app?action=sell&holdingID=N, as the original JSPs render it; the id is an
// integer, so the markup needs no escaping, and an attribute expression would write &amp;), or
// the /trade/ contract's form with its token.
type sellControl struct {
	v         *view
	holdingID int64
}

func (s sellControl) Render(ctx context.Context, w io.Writer) error {
	c := newCellWriter(w)
	if s.v.DT {
		c.s(`<a href="app?action=sell&holdingID=`)
		c.int(s.holdingID)
		c.s(`">sell</a>`)
		return c.err
	}
	c.s(`<form method="post" action="`)
	c.escaped(string(s.v.href("sell")))
	c.s(`">`)
	if c.err == nil {
		c.err = hidden(s.v, "sell").Render(ctx, w)
	}
	c.s(`<input type="hidden" name="holdingID" value="`)
	c.int(s.holdingID)
	c.s(`"> <button type="submit">Sell</button></form>`)
	return c.err
}

// int writes n in decimal.
func (c *cellWriter) int(n int64) {
	u := uint64(n)
	if n < 0 {
		c.s("-")
		u = -u
	}
	c.uint(u, false)
}

// quoteRow is one row of the quotes page, with its buy form. It is written here rather than in
// pages.templ because each of its four attribute expressions cost two allocations there, and
// the quotes page is most of DayTrader's mix; the markup is what the template wrote. live.js
// updates the data-symbol rows' cells by position (volume 3rd, range 4th, price 6th, change
// 7th: keep it in step), and the table's class right-aligns the number columns: no class or
// data attribute per cell, so five quotes go in one write (docs/benchmarks.md, "What the server's settings buy").
type quoteRow struct {
	v *view
	q trade.Quote
}

func (r quoteRow) Render(ctx context.Context, w io.Writer) error {
	c := newCellWriter(w)
	q := r.q
	c.s(`<tr data-symbol="`)
	c.escaped(q.Symbol)
	c.s(`"><td>`)
	c.escaped(q.Symbol)
	c.s(`</td><td>`)
	c.escaped(q.CompanyName)
	c.s(`</td><td>`)
	c.int(q.Volume)
	c.s(`</td><td>`)
	c.amount(q.Low, true)
	c.s(" – ")
	c.amount(q.High, true)
	c.s(`</td><td>`)
	c.amount(q.Open, true)
	c.s(`</td><td>`)
	c.amount(q.Price, true)
	c.s(`</td>`)
	if c.err == nil {
		c.err = signedCell{sign: q.Change, amount: q.Change, dollars: true, byColumn: true}.Render(ctx, w)
	}
	c.s(`<td><form method=post action=`)
	c.attrValue(string(r.v.formAction("buy")))
	c.s(`>`)
	if c.err == nil {
		c.err = hidden(r.v, "buy").Render(ctx, w)
	}
	c.s(`<input type=hidden name=symbol value=`)
	c.attrValue(q.Symbol)
	c.s(`> <input class=qty type=number name=quantity value=100 min=1 max=1000000 aria-label="shares of `)
	c.escaped(q.Symbol)
	c.s(`"> <button>Buy</button></form></td></tr>`)
	return c.err
}
