package verify

import (
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/internal/money"
	"golang.org/x/net/html"
)

// The application's pages as verify reads them, through the reader library (read.go): by the
// words on them, not by any one implementation's markup. The pages of Apache DayTrader (JSP,
// upper-case tags, layout tables within tables, labels and values stacked in neighbouring
// cells, headings wrapped across lines, "$ 1000.00") and tradebench's (templ, "$1,000.00") say
// the same things under the same headings; every reader goes by the headings and the labels,
// case-insensitively, so it reads both (read_test.go reads each on both).

// isLoginPage reports whether the page is a login form (user id and password fields).
func isLoginPage(d *doc) bool {
	_, ok := d.formWith("uid", "passwd")
	return ok
}

// submitted reports whether the page confirms an order ("… has been submitted").
func submitted(d *doc) bool { return d.says("has been submitted") }

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

// The tables the checks read, by their headings on DayTrader's pages and tradebench's (as key
// leaves them: lower case, white space collapsed, no colon at the end).
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

// order is one order as a page shows it. Price is 0 and Priced false on a page without the
// price column (DayTrader's order confirmation).
type order struct {
	ID       int64
	Status   string
	Fee      money.Money
	Type     string
	Symbol   string
	Quantity int64
	Price    money.Money
	Priced   bool
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

// orderColumns are the orders table's headings the readers need.
var orderColumns = []column{colOrderID, colStatus, colFee, colType, colSymbol, colQuantity}

// readOrders reads the order table of an account or order page (with or without its price
// column).
func readOrders(d *doc) ([]order, error) {
	rows, _, ok := d.table(nil, orderColumns, []column{colPrice})
	if !ok {
		return nil, unreadable("order table (headings order ID, status, fee, type, symbol, quantity)")
	}
	var out []order
	for _, r := range rows {
		var o order
		var err error
		if o.ID, err = strconv.ParseInt(r.cell(0), 10, 64); err != nil {
			continue // not an order's row ("No orders yet.")
		}
		o.Status, o.Type, o.Symbol = r.cell(1), strings.ToLower(r.cell(3)), r.cell(4)
		if o.Fee, err = parseMoney(r.cell(2)); err != nil {
			return nil, unreadable("fee of order %d (it shows %q)", o.ID, clean(r.cell(2), 40))
		}
		if o.Quantity, err = parseCount(r.cell(5)); err != nil {
			return nil, unreadable("quantity of order %d (it shows %q)", o.ID, clean(r.cell(5), 40))
		}
		if r.cells[6] != nil {
			if o.Price, err = parseMoney(r.cell(6)); err != nil {
				return nil, unreadable("price of order %d (it shows %q)", o.ID, clean(r.cell(6), 40))
			}
			o.Priced = true
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

// holding is one holding as the portfolio shows it, with the way to sell it.
type holding struct {
	ID            int64
	Symbol        string
	Quantity      int64
	PurchasePrice money.Money
	CurrentPrice  money.Money
	Priced        bool
	// sell is the link that sells it (action=sell&holdingID=N); sellForm the form that does
	// where the row sells it by a button instead (a /trade/ page's)
	sell     string
	sellForm *form
}

// readHoldings reads the portfolio page: each row of the holdings table, which must offer a
// way to sell it (the servlet's link action=sell&holdingID=N, or a form naming its id).
func readHoldings(d *doc) ([]holding, error) {
	rows, _, ok := d.table(nil, []column{colHoldingID, colSymbol, colQuantity, colPurchasePrice, colCurrentPrice}, nil)
	if !ok {
		return nil, unreadable("holdings table (headings holding ID, symbol, quantity, purchase price, current price)")
	}
	var out []holding
	for _, r := range rows {
		id, err := strconv.ParseInt(r.cell(0), 10, 64)
		if err != nil {
			continue // not a holding's row (a "no holdings" line, a total)
		}
		h := holding{ID: id, Symbol: r.cell(1)}
		h.sell, h.sellForm = sellLink(r.tr, id), sellForm(r.tr, id)
		if h.sell == "" && h.sellForm == nil {
			return nil, unreadable("way to sell holding %d (a link action=sell&holdingID=%d, or a form naming it)", id, id)
		}
		if h.Quantity, err = parseCount(r.cell(2)); err != nil {
			return nil, unreadable("quantity of holding %d (it shows %q)", id, clean(r.cell(2), 40))
		}
		if h.PurchasePrice, err = parseMoney(r.cell(3)); err != nil {
			return nil, unreadable("purchase price of holding %d (it shows %q)", id, clean(r.cell(3), 40))
		}
		if h.CurrentPrice, err = parseMoney(r.cell(4)); err == nil {
			h.Priced = true
		}
		out = append(out, h)
	}
	return out, nil
}

// sellLink is the row's link that sells holding id.
func sellLink(tr *html.Node, id int64) string {
	for _, l := range links(tr) {
		q := queryOf(l)
		if q.Get("action") == "sell" && q.Get("holdingID") == strconv.FormatInt(id, 10) {
			return l
		}
	}
	return ""
}

// sellForm is the row's form carrying holding id (nil: none).
func sellForm(tr *html.Node, id int64) *form {
	for _, f := range (&doc{root: tr}).forms() {
		for _, x := range f.fields {
			if x.value == strconv.FormatInt(id, 10) {
				return &f
			}
		}
	}
	return nil
}

// quote is one quote as the quotes page shows it.
type quote struct {
	Symbol string
	Open   money.Money
	Price  money.Money
}

// readQuotes reads the quotes page's table.
func readQuotes(d *doc) (map[string]quote, error) {
	rows, _, ok := d.table(nil, []column{colSymbol, colOpen, colCurrentPrice}, nil)
	if !ok {
		return nil, unreadable("quotes table (headings symbol, open, current price)")
	}
	out := map[string]quote{}
	for _, r := range rows {
		q := quote{Symbol: r.cell(0)}
		var err error
		if q.Open, err = parseMoney(r.cell(1)); err != nil {
			return nil, unreadable("open price of %s (it shows %q)", clean(q.Symbol, 40), clean(r.cell(1), 40))
		}
		if q.Price, err = parseMoney(r.cell(2)); err != nil {
			return nil, unreadable("current price of %s (it shows %q)", clean(q.Symbol, 40), clean(r.cell(2), 40))
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

// readMovers reads the market summary's table that follows heading ("Top gainers", "Top
// losers"); a row without a price ("none", or a cell a script fills) lists nothing.
func readMovers(d *doc, heading string) ([]mover, error) {
	at := d.after(heading)
	if at == nil {
		return nil, unreadable("%q", heading)
	}
	rows, _, ok := d.table(at, []column{colSymbol, colPrice, colChange}, nil)
	if !ok {
		return nil, unreadable("table of symbol, price and change after %q", heading)
	}
	var out []mover
	for _, r := range rows {
		m := mover{Symbol: r.cell(0)}
		var err error
		if m.Price, err = parseMoney(r.cell(1)); err != nil {
			return nil, unreadable("price of %s in %s (it shows %q)", clean(m.Symbol, 40), heading, clean(r.cell(1), 40))
		}
		if m.Change, err = parseMoney(firstAmount(r.cell(2))); err != nil {
			return nil, unreadable("change of %s in %s (it shows %q)", clean(m.Symbol, 40), heading, clean(r.cell(2), 40))
		}
		out = append(out, m)
	}
	return out, nil
}

// orderID is the id of the order a confirmation page names: its order table's first row, or
// the "Order 6004" of its sentence.
func orderID(d *doc) (int64, bool) {
	if os, err := readOrders(d); err == nil && len(os) > 0 {
		return os[0].ID, true
	}
	f := strings.Fields(strings.ToLower(d.text()))
	for i := 0; i+1 < len(f); i++ {
		if f[i] != "order" {
			continue
		}
		n := f[i+1]
		if n == "id" || n == "id:" {
			if i+2 >= len(f) {
				break
			}
			n = f[i+2]
		}
		if id, err := strconv.ParseInt(strings.Trim(n, ":.,"), 10, 64); err == nil {
			return id, true
		}
	}
	return 0, false
}
