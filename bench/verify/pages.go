package verify

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/internal/money"
)

// Reading the pages as a person does: by the words on them, not by tradebench's markup. The
// pages of Apache DayTrader (JSP, upper-case tags, layout tables within tables, "$ 1000.00")
// and tradebench's (templ, "$1,000.00") say the same things in the same tables with the same
// column headings; every reader here goes by the headings and the labels, case-insensitively,
// so it reads both.

var (
	reScript = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)\s*>`)
	reTag    = regexp.MustCompile(`(?s)<[^>]*>`)
	reSpace  = regexp.MustCompile(`\s+`)
	// a row runs from its <tr> to its </tr>, or to the next <tr> (a layout row that holds a
	// table ends where the inner table's first row starts)
	reRowStart = regexp.MustCompile(`(?i)<tr[\s>]`)
	reRowEnd   = regexp.MustCompile(`(?i)</tr\s*>`)
	reCell     = regexp.MustCompile(`(?i)<t[dh][\s>]`)
	reCellEnd  = regexp.MustCompile(`(?i)</t[dh]\s*>`)
	reMoney    = `(-?\s*\$?\s*-?\(?[0-9][0-9,]*(?:\.[0-9]+)?\)?)`
	reOrderID  = regexp.MustCompile(`(?i)order\s*(?:<[^>]*>\s*)*(?:id\s*:?\s*)?(?:<[^>]*>\s*)*(\d+)`)
	reSellLink = regexp.MustCompile(`action=sell(?:&amp;|&)holdingID=(\d+)`)
)

// text is what a page says: scripts and styles dropped, tags removed, entities decoded,
// white space collapsed.
func text(body string) string {
	s := reScript.ReplaceAllString(body, " ")
	s = reTag.ReplaceAllString(s, " ")
	s = html.UnescapeString(s)
	s = strings.ReplaceAll(s, "\u00a0", " ")
	return strings.TrimSpace(reSpace.ReplaceAllString(s, " "))
}

// welcomes reports whether the page greets uid as DayTrader's home page does: "Welcome", then
// white space, &nbsp; or line breaks, then the user id (DayTrader's JSP puts a newline there).
func welcomes(body, uid string) bool {
	re, err := regexp.Compile(`Welcome(\s|&nbsp;|(?i:<br\s*/?>))*` + regexp.QuoteMeta(uid) + `(\W|$)`)
	return err == nil && re.MatchString(body)
}

// isLoginPage reports whether the page is a login form (user id and password fields).
func isLoginPage(body string) bool {
	l := strings.ToLower(body)
	return strings.Contains(l, `name="uid"`) && strings.Contains(l, `name="passwd"`)
}

// submitted reports whether the page confirms an order ("… has been submitted").
func submitted(body string) bool { return strings.Contains(text(body), "has been submitted") }

// parseMoney reads an amount as the pages print it: "$1,234.56", "$ 1234.56", "-$5.00",
// "(5.00)" for a loss.
func parseMoney(s string) (money.Money, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	neg := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		neg, s = true, s[1:len(s)-1]
	}
	if strings.HasPrefix(s, "-") {
		neg, s = !neg, s[1:]
	}
	s = strings.TrimPrefix(s, "$")
	if strings.HasPrefix(s, "-") {
		neg, s = !neg, s[1:]
	}
	m, err := money.Parse(s)
	if err != nil {
		return 0, err
	}
	if neg {
		m = -m
	}
	return m, nil
}

// labelMoney is the amount printed after label ("Cash balance", "Opening balance"), matched
// case-insensitively in the page's text.
func labelMoney(body, label string) (money.Money, error) {
	words := strings.Fields(regexp.QuoteMeta(label))
	re := regexp.MustCompile(`(?i)` + strings.Join(words, `\s+`) + `\s*:?\s*` + reMoney)
	m := re.FindStringSubmatch(text(body))
	if m == nil {
		return 0, fmt.Errorf("the page shows no %q with an amount", label)
	}
	return parseMoney(m[1])
}

// row is one table row: its markup and its cells' text.
type row struct {
	html  string
	cells []string
}

// rows are the page's table rows in order.
func rows(body string) []row {
	var out []row
	for _, seg := range elements(body, reRowStart, reRowEnd) {
		r := row{html: seg}
		for _, cell := range elements(seg, reCell, reCellEnd) {
			r.cells = append(r.cells, text(cell))
		}
		out = append(out, r)
	}
	return out
}

// elements are the pieces of s that open with start and run to their end tag, or to the next
// start when the end tag is missing or comes later (HTML lets a row or cell go unclosed, and a
// layout row holding a table ends where the inner table's first row starts).
func elements(s string, start, end *regexp.Regexp) []string {
	var out []string
	starts := start.FindAllStringIndex(s, -1)
	for i, st := range starts {
		stop := len(s)
		if i+1 < len(starts) {
			stop = starts[i+1][0]
		}
		seg := s[st[0]:stop]
		if e := end.FindStringIndex(seg); e != nil {
			seg = seg[:e[0]]
		}
		out = append(out, seg)
	}
	return out
}

// column names one column of a table by the headings it may have (lower case).
type column []string

func (c column) matches(heading string) bool {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(heading)), ":")
	for _, a := range c {
		if h == a {
			return true
		}
	}
	return false
}

// table is the rows under a heading row that has every one of cols: each data row's cells
// by column, in order. It reads the first such table; a row with too few cells ends it.
type table struct {
	rows [][]string // cells of each data row, one per col
	html []string   // each data row's markup
}

// findTable reads the first table of body whose heading row has cols; ok is false when the
// page has none.
func findTable(body string, cols ...column) (t table, ok bool) {
	rs := rows(body)
	for i, r := range rs {
		idx, found := headings(r, cols)
		if !found {
			continue
		}
		need := 0
		for _, x := range idx {
			need = max(need, x+1)
		}
		for _, d := range rs[i+1:] {
			if len(d.cells) < need {
				break
			}
			if _, again := headings(d, cols); again {
				break
			}
			cells := make([]string, len(cols))
			for k, x := range idx {
				cells[k] = d.cells[x]
			}
			t.rows = append(t.rows, cells)
			t.html = append(t.html, d.html)
		}
		return t, true
	}
	return t, false
}

func headings(r row, cols []column) ([]int, bool) {
	idx := make([]int, len(cols))
	for k, c := range cols {
		idx[k] = -1
		for j, cell := range r.cells {
			if c.matches(cell) {
				idx[k] = j
				break
			}
		}
		if idx[k] < 0 {
			return nil, false
		}
	}
	return idx, true
}

// The tables the checks read, by their headings on DayTrader's pages and tradebench's.
var (
	colOrderID       = column{"order id"}
	colStatus        = column{"status", "order status"}
	colFee           = column{"fee", "txn fee"}
	colType          = column{"type", "order type"}
	colSymbol        = column{"symbol"}
	colQuantity      = column{"quantity"}
	colPrice         = column{"price"}
	colHoldingID     = column{"holding id"}
	colPurchasePrice = column{"purchase price"}
	colCurrentPrice  = column{"current price"}
	colOpen          = column{"open", "open price"}
	colChange        = column{"change"}
	colMarketValue   = column{"market value"}
)

// order is one order as a page shows it.
type order struct {
	ID       int64
	Status   string
	Fee      money.Money
	Type     string
	Symbol   string
	Quantity int64
	Price    money.Money
}

// final reports whether the order is done: closed or completed (or cancelled, which is final
// but not a trade).
func (o order) final() bool {
	switch strings.ToLower(o.Status) {
	case "closed", "completed", "cancelled":
		return true
	}
	return false
}

func (o order) done() bool {
	s := strings.ToLower(o.Status)
	return s == "closed" || s == "completed"
}

// orders reads the order table of an account or order page.
func readOrders(body string) ([]order, error) {
	t, ok := findTable(body, colOrderID, colStatus, colFee, colType, colSymbol, colQuantity, colPrice)
	if !ok {
		return nil, fmt.Errorf("the page has no order table (headings order ID, status, fee, type, symbol, quantity, price)")
	}
	var out []order
	for _, c := range t.rows {
		var o order
		var err error
		if o.ID, err = strconv.ParseInt(c[0], 10, 64); err != nil {
			return nil, fmt.Errorf("order id %q is not a number", clean(c[0], 40))
		}
		o.Status, o.Type, o.Symbol = c[1], strings.ToLower(c[3]), c[4]
		if o.Fee, err = parseMoney(c[2]); err != nil {
			return nil, fmt.Errorf("order %d: fee: %v", o.ID, err)
		}
		if o.Quantity, err = parseCount(c[5]); err != nil {
			return nil, fmt.Errorf("order %d: quantity: %v", o.ID, err)
		}
		if o.Price, err = parseMoney(c[6]); err != nil {
			return nil, fmt.Errorf("order %d: price: %v", o.ID, err)
		}
		out = append(out, o)
	}
	return out, nil
}

// parseCount reads a whole number as the pages print it ("1,000" or "1000", "10.0").
func parseCount(s string) (int64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	s = strings.TrimSuffix(s, ".0")
	return strconv.ParseInt(s, 10, 64)
}

// holding is one holding as the portfolio shows it.
type holding struct {
	ID            int64
	Symbol        string
	Quantity      int64
	PurchasePrice money.Money
	CurrentPrice  money.Money
	Priced        bool
}

// holdings reads the portfolio page: each row with a sell link (action=sell&holdingID=N).
func readHoldings(body string) ([]holding, error) {
	t, ok := findTable(body, colHoldingID, colSymbol, colQuantity, colPurchasePrice, colCurrentPrice)
	if !ok {
		return nil, fmt.Errorf("the page has no holdings table (headings holding ID, symbol, quantity, purchase price, current price)")
	}
	var out []holding
	for i, c := range t.rows {
		id, err := strconv.ParseInt(c[0], 10, 64)
		if err != nil {
			continue // not a holding's row (a "no holdings" line, a total)
		}
		if m := reSellLink.FindStringSubmatch(t.html[i]); m == nil || m[1] != c[0] {
			// the servlet contract sells a holding with a link naming its id; a /trade/ page's
			// button form names it in a hidden field
			if !strings.Contains(t.html[i], `value="`+c[0]+`"`) {
				return nil, fmt.Errorf("holding %d has no sell link (action=sell&holdingID=%d)", id, id)
			}
		}
		h := holding{ID: id, Symbol: c[1]}
		if h.Quantity, err = parseCount(c[2]); err != nil {
			return nil, fmt.Errorf("holding %d: quantity: %v", id, err)
		}
		if h.PurchasePrice, err = parseMoney(c[3]); err != nil {
			return nil, fmt.Errorf("holding %d: purchase price: %v", id, err)
		}
		if h.CurrentPrice, err = parseMoney(c[4]); err == nil {
			h.Priced = true
		}
		out = append(out, h)
	}
	return out, nil
}

// quote is one quote as the quotes page shows it.
type quote struct {
	Symbol string
	Open   money.Money
	Price  money.Money
}

// quotes reads the quotes page's table.
func readQuotes(body string) (map[string]quote, error) {
	t, ok := findTable(body, colSymbol, colOpen, colCurrentPrice)
	if !ok {
		return nil, fmt.Errorf("the page has no quotes table (headings symbol, open, current price)")
	}
	out := map[string]quote{}
	for _, c := range t.rows {
		q := quote{Symbol: c[0]}
		var err error
		if q.Open, err = parseMoney(c[1]); err != nil {
			return nil, fmt.Errorf("quote %s: open: %v", clean(c[0], 40), err)
		}
		if q.Price, err = parseMoney(c[2]); err != nil {
			return nil, fmt.Errorf("quote %s: price: %v", clean(c[0], 40), err)
		}
		out[q.Symbol] = q
	}
	return out, nil
}

// mover is one of the market summary's top gainers or losers.
type mover struct {
	Symbol string
	Price  money.Money
	Change money.Money
}

// movers reads the market summary's table that follows heading ("Top gainers", "Top losers").
func readMovers(body, heading string) ([]mover, error) {
	i := strings.Index(strings.ToLower(body), strings.ToLower(heading))
	if i < 0 {
		return nil, fmt.Errorf("the page has no %q", heading)
	}
	t, ok := findTable(body[i:], colSymbol, colPrice, colChange)
	if !ok {
		return nil, fmt.Errorf("no table of symbol, price and change after %q", heading)
	}
	var out []mover
	for _, c := range t.rows {
		m := mover{Symbol: c[0]}
		var err error
		if m.Price, err = parseMoney(c[1]); err != nil {
			continue // "none"
		}
		if m.Change, err = parseMoney(c[2]); err != nil {
			return nil, fmt.Errorf("%s %s: change: %v", heading, clean(c[0], 40), err)
		}
		out = append(out, m)
	}
	return out, nil
}

// orderID is the id of the order a confirmation page names.
func orderID(body string) (int64, bool) {
	if os, err := readOrders(body); err == nil && len(os) > 0 {
		return os[0].ID, true
	}
	m := reOrderID.FindStringSubmatch(body)
	if m == nil {
		return 0, false
	}
	id, err := strconv.ParseInt(m[1], 10, 64)
	return id, err == nil
}
