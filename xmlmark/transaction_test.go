package xmlmark

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/beevik/etree"
)

func mustTree(t *testing.T, lines int) (*etree.Document, []byte) {
	t.Helper()
	data, err := Generate(lines)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ParseTree(data)
	if err != nil {
		t.Fatal(err)
	}
	return doc, data
}

func priceOf(t *testing.T, it *etree.Element) Decimal {
	t.Helper()
	d, err := ParseDecimal(it.FindElement("Price/PriceAmount").Text())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func lineIDs(t *testing.T, doc *etree.Document) []int {
	t.Helper()
	var ids []int
	for _, it := range lineItems(doc) {
		id, err := strconv.Atoi(it.SelectElement("LineID").Text())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestAccessReadsSelectedItems(t *testing.T) {
	doc, _ := mustTree(t, 10)
	for _, pct := range []int{0, 25, 50, 100} {
		k := Items(10, pct)
		a, err := AccessTree(doc, k)
		if err != nil {
			t.Fatal(err)
		}
		// the expected values come from the generator's own line items, not from the tree
		var want Decimal
		for id := 1; id <= k; id++ {
			d, _ := ParseDecimal(childText(childNode(lineItem(id), "Price"), "PriceAmount"))
			want, _ = want.Add(d)
		}
		if a.Items != k || a.Total != want {
			t.Errorf("Selection %d%%: read %d items totalling %s, want %d totalling %s", pct, a.Items, a.Total, k, want)
		}
	}
}

func TestRaisePricesExactlyTenPercent(t *testing.T) {
	doc, _ := mustTree(t, 10)
	var before []Decimal
	for _, it := range lineItems(doc) {
		before = append(before, priceOf(t, it))
	}
	n, err := RaisePrices(doc, 30)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("raised %d prices, want 3", n)
	}
	for i, it := range lineItems(doc) {
		after := priceOf(t, it)
		if i < 3 {
			// after × 10 == before × 11, compared as exact integers at a common scale
			s := max(after.Scale, before[i].Scale+1)
			a, _ := after.rescale(s)
			b, _ := Decimal{Unscaled: before[i].Unscaled * 11, Scale: before[i].Scale + 1}.rescale(s)
			if a.Unscaled != b.Unscaled {
				t.Errorf("item %d: %s raised to %s, not exactly 10%%", i+1, before[i], after)
			}
		} else if after != before[i] {
			t.Errorf("item %d: %s changed to %s but was not selected", i+1, before[i], after)
		}
	}
}

func TestReplaceLineItems(t *testing.T) {
	doc, _ := mustTree(t, 10)
	r, err := ReplaceLineItems(doc, 20)
	if err != nil {
		t.Fatal(err)
	}
	if r != (Restructure{Deleted: 2, Appended: 2, FirstID: 11, LastID: 12}) {
		t.Fatalf("restructure = %+v", r)
	}
	// evenly spread deletions of 2 of 10: positions 0 and 5 (ids 1 and 6)
	want := []int{2, 3, 4, 5, 7, 8, 9, 10, 11, 12}
	if got := lineIDs(t, doc); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("line ids after the structure modification = %v, want %v", got, want)
	}
	// the new items sit after the last line item, before the Summary, and are whole items
	kids := doc.Root().ChildElements()
	if kids[len(kids)-1].Tag != "Summary" || kids[len(kids)-2].SelectElement("LineID").Text() != "12" {
		t.Error("appended line items are not at the end of the line items")
	}
	if kids[len(kids)-2].FindElement("Price/PriceAmount") == nil || kids[len(kids)-2].FindElement("Price").SelectAttrValue("Currency", "") != "USD" {
		t.Error("appended line item lacks its Price")
	}
	// a second modification continues the sequence beyond the largest id
	if r, _ = ReplaceLineItems(doc, 10); r.FirstID != 13 || r.LastID != 13 {
		t.Errorf("second restructure = %+v, want id 13", r)
	}
	// deleting the item holding the largest id must not let it be reused
	doc2, _ := mustTree(t, 4)
	if r, _ = ReplaceLineItems(doc2, 100); r.FirstID != 5 || r.LastID != 8 || fmt.Sprint(lineIDs(t, doc2)) != "[5 6 7 8]" {
		t.Errorf("replace all = %+v, ids %v", r, lineIDs(t, doc2))
	}
}

// canon renders a tree without whitespace-only text, for comparing trees.
func canon(e *etree.Element, b *strings.Builder) {
	b.WriteString("<" + e.Tag)
	for _, a := range e.Attr {
		fmt.Fprintf(b, " %s=%q", a.FullKey(), a.Value)
	}
	b.WriteString(">")
	for _, c := range e.Child {
		switch c := c.(type) {
		case *etree.Element:
			canon(c, b)
		case *etree.CharData:
			if strings.TrimSpace(c.Data) != "" {
				b.WriteString(c.Data)
			}
		}
	}
	b.WriteString("</" + e.Tag + ">")
}

func canonical(doc *etree.Document) string {
	var b strings.Builder
	canon(doc.Root(), &b)
	return b.String()
}

func TestTreeTransactionSerializesTheModifiedTree(t *testing.T) {
	_, data := mustTree(t, 20)
	var w TreeWorker
	o := TreeOptions{Selection: 50, ContentModification: 25, StructureModification: 25, Serialize: true}
	r, err := w.Run(data, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Access.Items != 10 || r.Raised != 5 || r.Restructure.Deleted != 5 || r.Restructure.Appended != 5 || r.Serialized != int64(len(w.Output())) {
		t.Fatalf("tree transaction = %+v", r)
	}
	// the same phases applied by hand give the tree the transaction must have written
	want, _ := mustTree(t, 20)
	if _, err := RaisePrices(want, 25); err != nil {
		t.Fatal(err)
	}
	if _, err := ReplaceLineItems(want, 25); err != nil {
		t.Fatal(err)
	}
	back, err := ParseTree(w.Output())
	if err != nil {
		t.Fatalf("serialized output does not parse: %v", err)
	}
	if canonical(back) != canonical(want) {
		t.Error("the serialized output does not parse back to the modified tree")
	}
	orig, _ := ParseTree(data)
	if canonical(back) == canonical(orig) {
		t.Error("the serialized output equals the original: nothing was modified")
	}
	// Serialize false writes nothing
	w.out.Reset()
	if r, _ := w.Run(data, TreeOptions{Selection: 50}); r.Serialized != 0 || w.out.Len() != 0 {
		t.Error("serialized although Serialize is false")
	}
	// a worker reused for another transaction starts from the original document again
	r2, _ := w.Run(data, o)
	if r2 != r {
		t.Errorf("second transaction %+v differs from the first %+v", r2, r)
	}
}

func TestStreamingReadsWhatTheTreeReads(t *testing.T) {
	sax, pull := NewSAXScanner(), NewPullScanner()
	for _, lines := range []int{1, 10, DOMLines, StreamLines} {
		doc, data := mustTree(t, lines)
		for _, pct := range []int{0, 25, 50, 100} {
			k := Items(lines, pct)
			want, err := AccessTree(doc, k)
			if err != nil {
				t.Fatal(err)
			}
			for name, scan := range map[string]func([]byte, int) (ScanResult, error){"sax": sax.Scan, "pull": pull.Scan} {
				got, err := scan(data, k)
				if err != nil {
					t.Fatalf("%s scan of %d lines: %v", name, lines, err)
				}
				if got.Access != want || got.LineItems != lines {
					t.Errorf("%s, %d lines, %d%%: read %+v of %d items, tree read %+v", name, lines, pct, got.Access, got.LineItems, want)
				}
			}
		}
	}
}

// Streaming scanners must handle what a valid document may contain besides plain elements:
// entities, CDATA, comments, self-closing tags, namespace prefixes.
func TestStreamingSyntaxVariants(t *testing.T) {
	doc := `<?xml version="1.0"?>
<!-- an invoice -->
<p:Invoice xmlns:p="urn:x"><p:Header/>
<p:LineItem><p:LineID>1</p:LineID><p:Price Currency='E&amp;R' Other="x"><p:PriceAmount><![CDATA[1.50]]></p:PriceAmount></p:Price></p:LineItem>
<p:LineItem><p:LineID>2</p:LineID><p:Price Other="y" Currency="USD"><p:PriceAmount>&#50;.25</p:PriceAmount><p:BaseQuantity unitCode="EA"/></p:Price></p:LineItem>
<p:Summary/></p:Invoice>`
	for name, scan := range map[string]func([]byte, int) (ScanResult, error){"sax": NewSAXScanner().Scan, "pull": NewPullScanner().Scan} {
		got, err := scan([]byte(doc), 2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.LineItems != 2 || got.Access.Items != 2 || got.Access.Total.String() != "3.75" {
			t.Errorf("%s read %+v", name, got)
		}
	}
	a, _ := NewSAXScanner().Scan([]byte(doc), 2)
	b, _ := NewPullScanner().Scan([]byte(doc), 2)
	if a.Access.Digest != b.Access.Digest {
		t.Error("sax and pull read different currency/amount text")
	}
}

func TestMalformedDocumentsAreErrors(t *testing.T) {
	good, _ := Generate(2)
	cases := map[string]string{
		"empty":          "",
		"no root":        `<?xml version="1.0"?>`,
		"mismatched":     `<Invoice><LineItem></Price></Invoice>`,
		"unclosed":       `<Invoice><LineItem>`,
		"extra end":      `<Invoice></Invoice></Invoice>`,
		"two roots":      `<Invoice></Invoice><Invoice></Invoice>`,
		"wrong root":     `<Order><LineItem/></Order>`,
		"bad amount":     `<Invoice><LineItem><Price Currency="USD"><PriceAmount>12,50</PriceAmount></Price></LineItem></Invoice>`,
		"no currency":    `<Invoice><LineItem><Price><PriceAmount>1.00</PriceAmount></Price></LineItem></Invoice>`,
		"truncated":      string(good[:len(good)/2]),
		"text after":     `<Invoice></Invoice>trailing`,
		"unquoted attr":  `<Invoice><LineItem><Price Currency=USD><PriceAmount>1</PriceAmount></Price></LineItem></Invoice>`,
		"binary garbage": "\x00\x01<\xff\xfe>",
	}
	for name, doc := range cases {
		data := []byte(doc)
		tree := func() error {
			var w TreeWorker
			_, err := w.Run(data, TreeOptions{Selection: 100, ContentModification: 100})
			return err
		}
		sax := func() error { _, err := NewSAXScanner().Scan(data, 10); return err }
		pull := func() error { _, err := NewPullScanner().Scan(data, 10); return err }
		for pname, f := range map[string]func() error{"dom": tree, "sax": sax, "pull": pull} {
			err := f()
			if err == nil {
				t.Errorf("%s: %s accepted a malformed document", name, pname)
				continue
			}
			if strings.Contains(err.Error(), "panic") {
				t.Errorf("%s: %s: %v", name, pname, err)
			}
		}
	}
}

// Every truncation of a document is malformed; no parser may accept one or panic.
func TestTruncatedDocuments(t *testing.T) {
	data, _ := Generate(1)
	data = bytes.TrimRight(data, "\n")
	sax, pull := NewSAXScanner(), NewPullScanner()
	for n := 0; n < len(data); n += 7 {
		part := data[:n]
		if _, err := sax.Scan(part, 1); err == nil {
			t.Fatalf("sax accepted the document cut at %d bytes", n)
		}
		if _, err := pull.Scan(part, 1); err == nil {
			t.Fatalf("pull accepted the document cut at %d bytes", n)
		}
		if _, err := ParseTree(part); err == nil {
			t.Fatalf("etree accepted the document cut at %d bytes", n)
		}
	}
}
