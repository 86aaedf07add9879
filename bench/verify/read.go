package verify

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/tradebench/tradebench/internal/money"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The reader library: every check reads a page through here, as a browser lays it out, never
// with a regular expression over its markup. A page is parsed into a document tree (the parser
// mends what HTML lets an implementation leave out: unclosed rows, upper-case tags, a row's
// cells outside any <tbody>), and read by what a person sees:
//
//   - text, with white space, tabs, &nbsp; and line breaks inside a heading or label normalised
//     ("order\n  ID" is "order ID");
//   - a value by its label, wherever an implementation puts it: in the same cell ("Cash
//     balance: $1,000.00", tradebench's home page), in the next cell of the row (its account
//     page, DayTrader's account page), or on the same line of the neighbouring cell when labels
//     and values are stacked with <BR> (DayTrader's home page: "cash balance:<BR>number of
//     holdings:" | "$ 145951.40<BR>8");
//   - a table by its normalised headings, the columns counted with their colspans.
//
// What a reader cannot find is an *unreadableError naming what it looked for: the check that
// asked says "unreadable", not "failed", because the page may say it in a way verify does not
// read (docs/guide.md, "Certifying an implementation").

// unreadableError is a page that does not show, in any layout verify reads, what was looked for.
type unreadableError struct{ what string }

func (e *unreadableError) Error() string { return "the page shows no " + e.what }

func unreadable(format string, args ...any) error {
	return &unreadableError{what: fmt.Sprintf(format, args...)}
}

// doc is one parsed page.
type doc struct {
	root  *html.Node
	lines []string // the page's text lines, normalised (see lines)
}

// parse reads a page into its tree. The parser accepts anything (it is the HTML5 algorithm);
// the body is already bounded by the client (maxBody), and the parser bounds its own depth.
func parse(body string) *doc {
	n, err := html.Parse(strings.NewReader(body))
	if err != nil {
		n = &html.Node{Type: html.DocumentNode}
	}
	d := &doc{root: n}
	d.lines = lines(n)
	return d
}

// breaks are the elements a browser starts a new line at (blocks, cells, rows, <br>).
var breaks = map[atom.Atom]bool{
	atom.Br: true, atom.P: true, atom.Div: true, atom.Tr: true, atom.Td: true, atom.Th: true, atom.Li: true,
	atom.Ul: true, atom.Ol: true, atom.Table: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Dl: true,
	atom.Dt: true, atom.Dd: true, atom.Form: true, atom.Hr: true, atom.Caption: true, atom.Title: true,
	atom.Center: true, atom.Blockquote: true, atom.Pre: true, atom.Section: true, atom.Header: true,
	atom.Footer: true, atom.Main: true, atom.Nav: true, atom.Article: true, atom.Aside: true, atom.Body: true,
	atom.Head: true, atom.Html: true, atom.Select: true, atom.Option: true, atom.Textarea: true, atom.Fieldset: true,
	atom.Legend: true, atom.Label: true,
}

// hidden are the elements whose content is not shown.
var hidden = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Noscript: false, atom.Template: true}

// lines is what n shows, one entry a line: split where a browser breaks a line, white space
// (tabs, newlines, &nbsp;) collapsed to single spaces, empty lines dropped.
func lines(n *html.Node) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := normalise(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			cur.WriteString(n.Data)
			return
		case html.ElementNode:
			if hidden[n.DataAtom] {
				return
			}
			if breaks[n.DataAtom] {
				flush()
				defer flush()
			}
		case html.CommentNode, html.DoctypeNode:
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	flush()
	return out
}

// normalise collapses every run of white space (tabs, newlines, &nbsp;) to one space and trims
// the ends: "order\n\t ID" is "order ID".
func normalise(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == '\u00a0'
	}), " ")
}

// textOf is what n shows on one line: its lines joined by spaces.
func textOf(n *html.Node) string { return strings.Join(lines(n), " ") }

// text is what the whole page shows, on one line.
func (d *doc) text() string { return strings.Join(d.lines, " ") }

// key is a heading or label as verify compares it: normalised, lower case, without a colon
// at its end.
func key(s string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.ToLower(normalise(s)), ":"))
}

// walk calls fn on every element of n's tree in document order; fn returns false to skip an
// element's children.
func walk(n *html.Node, fn func(*html.Node) bool) {
	if n.Type == html.ElementNode && !fn(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

// attr is an element's attribute (names are lower case after parsing).
func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func isCell(n *html.Node) bool {
	return n.Type == html.ElementNode && (n.DataAtom == atom.Td || n.DataAtom == atom.Th || n.DataAtom == atom.Dt || n.DataAtom == atom.Dd)
}

// value is the text shown for label (one of its spellings: "cash balance"), wherever the page
// puts it: after the label on the same line, in the next non-empty cell of the row, or on the
// same line of that cell when labels and values are stacked. The same-line form is looked for
// first across the whole page, then the cells.
func (d *doc) value(labels ...string) (string, error) {
	for _, label := range labels {
		want := key(label)
		for _, l := range d.lines {
			k := strings.ToLower(l)
			if !strings.HasPrefix(k, want) || len(k) == len(want) {
				continue
			}
			rest := l[len(want):]
			if rest[0] != ':' && rest[0] != ' ' {
				continue // a longer word: "cash balances"
			}
			if v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":")); v != "" {
				return v, nil
			}
		}
	}
	var found string
	var ok bool
	walk(d.root, func(n *html.Node) bool {
		if ok || !isCell(n) {
			return !ok
		}
		ls := lines(n)
		for i, l := range ls {
			for _, label := range labels {
				if key(l) != key(label) {
					continue
				}
				next := nextCell(n)
				if next == nil {
					continue
				}
				vs := lines(next)
				switch {
				case len(ls) == 1:
					found, ok = strings.Join(vs, " "), true
				case i < len(vs):
					found, ok = vs[i], true
				}
				if ok {
					return false
				}
			}
		}
		return true
	})
	if !ok {
		return "", unreadable("%q with a value (on its line, in the next cell, or on the same line of the next cell)", labels[0])
	}
	return found, nil
}

// nextCell is the cell after n in its row that shows something (DayTrader puts spacer cells
// between its labels and values).
func nextCell(n *html.Node) *html.Node {
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		if isCell(c) && len(lines(c)) > 0 {
			return c
		}
	}
	return nil
}

// amount is the amount shown for label.
func (d *doc) amount(labels ...string) (money.Money, error) {
	s, err := d.value(labels...)
	if err != nil {
		return 0, err
	}
	m, err := parseMoney(firstAmount(s))
	if err != nil {
		return 0, unreadable("amount for %q (it shows %q)", labels[0], clean(s, 60))
	}
	return m, nil
}

// count is the whole number shown for label.
func (d *doc) count(labels ...string) (int64, error) {
	s, err := d.value(labels...)
	if err != nil {
		return 0, err
	}
	n, err := parseCount(strings.Fields(s + " ")[0])
	if err != nil {
		return 0, unreadable("number for %q (it shows %q)", labels[0], clean(s, 60))
	}
	return n, nil
}

// firstAmount is the amount at the start of a cell that may say more after it ("$1,000.00
// (purchase basis)", "$ -3979.90 (-4.00%)"): up to the first "(" that follows a digit.
func firstAmount(s string) string {
	for i := 1; i < len(s); i++ {
		if s[i] == '(' && strings.ContainsAny(s[:i], "0123456789") {
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}

// column names one column of a table by the headings it may have, as key() leaves them.
type column []string

func (c column) matches(heading string) bool {
	h := key(heading)
	for _, a := range c {
		if h == a {
			return true
		}
	}
	return false
}

// trow is one data row of a table: each asked-for column's cell (nil for an optional column
// the table does not have), and the row itself (for its links and forms).
type trow struct {
	cells []*html.Node
	tr    *html.Node
}

// cell is the text of the row's k-th asked-for column ("" when the table has no such column).
func (r trow) cell(k int) string {
	if r.cells[k] == nil {
		return ""
	}
	return textOf(r.cells[k])
}

// rowCells are the cells of a row with the column each starts at (colspans counted).
func rowCells(tr *html.Node) (cells []*html.Node, cols []int) {
	col := 0
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
			continue
		}
		cells, cols = append(cells, c), append(cols, col)
		span := 1
		if s, ok := attr(c, "colspan"); ok {
			if _, err := fmt.Sscan(s, &span); err != nil || span < 1 || span > 1000 {
				span = 1
			}
		}
		col += span
	}
	return cells, cols
}

// tableRows are a table's rows in order, its nested tables' not included.
func tableRows(table *html.Node) []*html.Node {
	var out []*html.Node
	var visit func(*html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Tr:
				out = append(out, c)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				visit(c)
			}
		}
	}
	visit(table)
	return out
}

// table finds the first table (at or after from, nil: the page's start) whose heading row has
// every one of need, and reads its data rows: for each, the cells of need and then of opt (nil
// where the table has no such column). A heading row repeated inside the table (DayTrader
// repeats it before each completed order) is skipped; a row without a cell in each needed
// column (a "no orders yet" line, a total) is skipped too. ok is false when no table has the
// headings.
func (d *doc) table(from *html.Node, need, opt []column) (rows []trow, heading *html.Node, ok bool) {
	all := append(append([]column{}, need...), opt...)
	started := from == nil
	walk(d.root, func(n *html.Node) bool {
		if n == from {
			started = true
		}
		if ok || !started || n.DataAtom != atom.Table {
			return !ok
		}
		trs := tableRows(n)
		for i, tr := range trs {
			at, found := headingCols(tr, need, all)
			if !found {
				continue
			}
			heading, ok = tr, true
			for _, d := range trs[i+1:] {
				if _, again := headingCols(d, need, all); again {
					continue
				}
				cells, cols := rowCells(d)
				r := trow{cells: make([]*html.Node, len(all)), tr: d}
				complete := true
				for k, c := range at {
					r.cells[k] = cellAt(cells, cols, c)
					if k < len(need) && (r.cells[k] == nil || textOf(r.cells[k]) == "") {
						complete = false
					}
				}
				if complete {
					rows = append(rows, r)
				}
			}
			return false
		}
		return true
	})
	return rows, heading, ok
}

// headingCols reports whether tr is a heading row with every needed column, and the column
// number of each of all (-1 for a missing optional one).
func headingCols(tr *html.Node, need, all []column) ([]int, bool) {
	cells, cols := rowCells(tr)
	at := make([]int, len(all))
	for k, c := range all {
		at[k] = -1
		for j, cell := range cells {
			if c.matches(textOf(cell)) {
				at[k] = cols[j]
				break
			}
		}
		if k < len(need) && at[k] < 0 {
			return nil, false
		}
	}
	return at, true
}

// cellAt is the cell of a row covering column col (nil: none, or col is -1).
func cellAt(cells []*html.Node, cols []int, col int) *html.Node {
	if col < 0 {
		return nil
	}
	for j := len(cells) - 1; j >= 0; j-- {
		if cols[j] <= col {
			if cols[j] == col {
				return cells[j]
			}
			return nil // inside a colspan that starts earlier: not this column's own cell
		}
	}
	return nil
}

// after is the first element whose own text (as a cell, heading or paragraph shows it) is one
// of the labels ("Top gainers"): where a page's section starts.
func (d *doc) after(labels ...string) *html.Node {
	var found *html.Node
	walk(d.root, func(n *html.Node) bool {
		if found != nil {
			return false
		}
		if n.DataAtom == atom.Table || n.DataAtom == atom.Html || n.DataAtom == atom.Body {
			return true
		}
		t := key(textOf(n))
		for _, l := range labels {
			if t == key(l) {
				found = n
				return false
			}
		}
		return len(t) >= len(key(labels[0]))
	})
	return found
}

// greets reports whether the page says "Welcome" and then the user id as a word, however the
// white space, &nbsp; and line breaks between them fall ("Welcome \t uid:2", "Welcome
// &nbsp;uid:1,").
func (d *doc) greets(uid string) bool {
	re, err := regexp.Compile(`(?i)\bwelcome ` + regexp.QuoteMeta(uid) + `([^\w:.\-]|$)`)
	return err == nil && re.MatchString(d.text())
}

// says reports whether the page shows phrase (compared normalised, case-insensitively).
func (d *doc) says(phrase string) bool {
	return strings.Contains(strings.ToLower(d.text()), strings.ToLower(normalise(phrase)))
}

// links are the hrefs of the <a> elements under n.
func links(n *html.Node) []string {
	var out []string
	walk(n, func(e *html.Node) bool {
		if e.DataAtom == atom.A {
			if h, ok := attr(e, "href"); ok {
				out = append(out, h)
			}
		}
		return true
	})
	return out
}

// queryOf is the query of a link as a browser reads it (DayTrader writes "&" unescaped in its
// hrefs; the parser has already decoded "&amp;").
func queryOf(href string) url.Values {
	u, err := url.Parse(href)
	if err != nil {
		return nil
	}
	q, _ := url.ParseQuery(u.RawQuery)
	return q
}
