package verify

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Other implementations' layouts: tradebench's data rendered as Apache DayTrader 8 lays its
// pages out (testdata/daytrader8), and a target whose account page verify cannot read.

// dayTraderLayout re-lays tradebench's /daytrader/ pages out as DayTrader's JSPs do: the
// label: value rows of a summary stacked into one cell of labels and one of values joined by
// <BR> with a spacer cell between, headings as plain cells in lower case wrapped across lines
// ("order\n\t\t\t ID", "order\n\t\t\t status", "txn\n\t\t\t fee", "open\n\t\t\t price"),
// amounts as "$ 1234.56", the greeting as "Welcome &nbsp;\n uid,", and upper-case tags.
func dayTraderLayout(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") && strings.HasPrefix(r.URL.Path, "/daytrader/") {
			body = relayout(body)
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

var (
	reAmount  = regexp.MustCompile(`\$([0-9][0-9,]*\.[0-9]{2})`)
	reWelcome = regexp.MustCompile(`Welcome (\S+)$`)
	reTagName = regexp.MustCompile(`<(/?)([a-z][a-z0-9]*)`)
	// DayTrader's words for tradebench's headings
	dtHeadings = map[string]string{"status": "order status", "fee": "txn fee", "open": "open price"}
)

func relayout(body []byte) []byte {
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return body
	}
	var tables, heads []*html.Node
	walk(root, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Table:
			tables = append(tables, n)
		case atom.Th:
			heads = append(heads, n)
		}
		return true
	})
	for _, t := range tables {
		stack(t)
	}
	for _, th := range heads {
		th.DataAtom, th.Data = atom.Td, "td"
		words := key(textOf(th))
		if dt, ok := dtHeadings[words]; ok {
			words = dt
		}
		for c := th.FirstChild; c != nil; c = th.FirstChild {
			th.RemoveChild(c)
		}
		th.AppendChild(&html.Node{Type: html.TextNode, Data: strings.ReplaceAll(words, " ", "\n\t\t\t ")})
	}
	var texts []*html.Node
	var collect func(*html.Node)
	collect = func(n *html.Node) {
		if n.Type == html.TextNode {
			texts = append(texts, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			collect(c)
		}
	}
	collect(root)
	for _, t := range texts {
		t.Data = reAmount.ReplaceAllStringFunc(t.Data, func(m string) string { return "$ " + strings.ReplaceAll(m[1:], ",", "") })
		if m := reWelcome.FindStringSubmatch(strings.TrimSpace(t.Data)); m != nil && t.Parent.DataAtom == atom.P {
			t.Data = "Welcome \u00a0\n\t\t" + m[1] + ","
		}
	}
	var b bytes.Buffer
	if err := html.Render(&b, root); err != nil {
		return body
	}
	return reTagName.ReplaceAllFunc(b.Bytes(), bytes.ToUpper)
}

// stack turns a table whose rows are each one cell "<b>Label: </b>value" into DayTrader's
// layout: one row of a cell of the labels and a cell of the values, each joined by <BR>, a
// spacer cell between.
func stack(t *html.Node) {
	trs := tableRows(t)
	if len(trs) < 2 {
		return
	}
	var labels, values []string
	for _, tr := range trs {
		cells, _ := rowCells(tr)
		if len(cells) != 1 || cells[0].FirstChild == nil || cells[0].FirstChild.DataAtom != atom.B {
			return
		}
		label := textOf(cells[0].FirstChild)
		labels = append(labels, strings.ReplaceAll(strings.ToLower(label), " ", "\n\t\t "))
		values = append(values, strings.TrimSpace(strings.TrimPrefix(textOf(cells[0]), label)))
	}
	for c := t.FirstChild; c != nil; c = t.FirstChild {
		t.RemoveChild(c)
	}
	tr := &html.Node{Type: html.ElementNode, DataAtom: atom.Tr, Data: "tr"}
	t.AppendChild(tr)
	for _, lines := range [][]string{labels, nil, values} {
		td := &html.Node{Type: html.ElementNode, DataAtom: atom.Td, Data: "td"}
		for _, l := range lines {
			td.AppendChild(&html.Node{Type: html.TextNode, Data: " " + l})
			td.AppendChild(&html.Node{Type: html.ElementNode, DataAtom: atom.Br, Data: "br"})
		}
		tr.AppendChild(td)
	}
}

// The layout is DayTrader's where the readers look: the home page's labels and values stacked,
// the headings wrapped, "$ 1234.56", upper-case tags — read back by the readers to the same
// facts as tradebench's own page.
func TestDayTraderLayoutIsDayTraders(t *testing.T) {
	page := []byte(`<html><body><p>Welcome uid:7</p><table><tr><td><b>Cash Balance: </b>$1,234.50</td></tr>` +
		`<tr><td><b>Number of Holdings: </b>3</td></tr></table><table><tr><th>Order ID</th><th>Status</th></tr>` +
		`<tr><td>5</td><td>closed</td></tr></table></body></html>`)
	got := string(relayout(page))
	for _, want := range []string{"<TD> cash\n\t\t balance:<BR/> number\n\t\t of\n\t\t holdings:<BR/></TD><TD></TD><TD> $ 1234.50<BR/> 3<BR/></TD>",
		"<TD>order\n\t\t\t id</TD><TD>order\n\t\t\t status</TD>", "Welcome \u00a0\n\t\tuid:7,"} {
		if !strings.Contains(got, want) {
			t.Errorf("relayout lacks %q:\n%s", want, got)
		}
	}
	d := parse(got)
	if c, err := d.amount("cash balance"); err != nil || c != cents("1234.50") || !d.greets("uid:7") {
		t.Errorf("read back: %v, %v", c, err)
	}
}

// A target showing tradebench's data in DayTrader's layout passes every check tradebench
// passes, and skips only what tradebench skips.
func TestVerifyDayTraderLayout(t *testing.T) {
	res := verifyTarget(t, brokenTarget(t, "", dayTraderLayout))
	if !res.Conformant {
		var b bytes.Buffer
		res.WriteSummary(&b)
		t.Fatalf("tradebench in DayTrader's layout:\n%s", b.String())
	}
	for _, c := range res.Checks {
		if c.Outcome != report.CheckPass && c.ID != "isolation.cancel_other" {
			t.Errorf("%s %s in DayTrader's layout: %s", c.ID, c.Outcome, c.Reason)
		}
	}
}

// unreadableAccount makes the account page say nothing verify reads: its labels and headings
// in words of its own.
func unreadableAccount(h http.Handler) http.Handler {
	return rewritePage("account", regexp.MustCompile(`Cash balance|Opening balance|Order ID`), "Moneys")(h)
}

// A target whose account page cannot be read: the checks that read it say unreadable (with
// what they looked for and an excerpt), a defect elsewhere still fails its own check, and the
// isolation and input checks still run and report — none is skipped for another check's sake.
func TestVerifyUnreadableAccountPage(t *testing.T) {
	res := verifyTarget(t, brokenTarget(t, "symbol-500", unreadableAccount))
	var b bytes.Buffer
	res.WriteSummary(&b)
	if got := res.Failed(); !slices.Equal(got, []string{"input.symbol"}) {
		t.Fatalf("failed %v, want exactly [input.symbol]\n%s", got, b.String())
	}
	if res.Conformant || res.Level != 0 {
		t.Errorf("an unreadable account page certified to level %d", res.Level)
	}
	un := res.Unreadable()
	for _, id := range []string{"pages.account", "business.register_balance", "input.quantity"} {
		if !slices.Contains(un, id) {
			t.Errorf("%s not unreadable (unreadable: %v)\n%s", id, un, b.String())
		}
	}
	for _, c := range res.Checks {
		if c.Outcome == report.CheckUnreadable && (len(c.Evidence) == 0 || !strings.Contains(c.Evidence[0].Expected, "account page") && !strings.Contains(c.Reason, "account")) {
			t.Errorf("%s unreadable without saying what it looked for on the account page: %+v", c.ID, c)
		}
		if strings.HasPrefix(c.ID, "isolation.") || strings.HasPrefix(c.ID, "input.") {
			if c.Outcome == report.CheckSkip && c.ID != "isolation.cancel_other" {
				t.Errorf("%s skipped: %s", c.ID, c.Reason)
			}
		}
		if c.Outcome == report.CheckSkip && strings.Contains(c.Reason, "which did not pass") {
			t.Errorf("%s skipped naming another check: %s", c.ID, c.Reason)
		}
	}
	if !strings.Contains(b.String(), "unreadable") || !strings.Contains(b.String(), "looked for:") {
		t.Errorf("the summary does not count or explain the unreadable checks:\n%s", b.String())
	}
}
