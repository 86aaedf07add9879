package xmlmark

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"testing"
)

func TestGenerateDeterministicAndSized(t *testing.T) {
	for _, tc := range []struct {
		lines    int
		min, max int
	}{{DOMLines, 85_000, 95_000}, {StreamLines, 850_000, 950_000}} {
		a, err := Generate(tc.lines)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Generate(tc.lines)
		if !bytes.Equal(a, b) {
			t.Fatalf("Generate(%d) is not deterministic", tc.lines)
		}
		if len(a) < tc.min || len(a) > tc.max {
			t.Errorf("Generate(%d) = %d bytes, want %d–%d (the XML Mark paper's ≈90 KB / ≈900 KB)", tc.lines, len(a), tc.min, tc.max)
		}
		d, err := NewDocument("gen", "generated", a)
		if err != nil {
			t.Fatal(err)
		}
		if d.LineItems != tc.lines {
			t.Errorf("Generate(%d) has %d line items", tc.lines, d.LineItems)
		}
	}
	if _, err := Generate(0); err == nil {
		t.Error("Generate(0) should fail: the schema needs at least one line item")
	}
}

// The generated summary must add up: its totals are the exact sums of the line items.
func TestGeneratedSummaryTotals(t *testing.T) {
	data, _ := Generate(37)
	doc, err := ParseTree(data)
	if err != nil {
		t.Fatal(err)
	}
	var sum Decimal
	for _, it := range lineItems(doc) {
		d, err := ParseDecimal(it.SelectElement("LineExtensionAmount").Text())
		if err != nil {
			t.Fatal(err)
		}
		sum, _ = sum.Add(d)
	}
	got := doc.Root().FindElement("Summary/LineExtensionTotalAmount").Text()
	if got != sum.String() {
		t.Errorf("summary total %s, sum of line items %s", got, sum)
	}
}

// The XSD must be well-formed and declare every element and attribute the documents use.
func TestXSDCoversDocument(t *testing.T) {
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`<xs:(?:element|attribute) name="([A-Za-z]+)"`).FindAllStringSubmatch(XSD, -1) {
		declared[m[1]] = true
	}
	dec := xml.NewDecoder(bytes.NewReader([]byte(XSD)))
	for {
		if _, err := dec.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("XSD is not well-formed: %v", err)
			}
			break
		}
	}
	data, _ := Generate(3)
	dec = xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			if !declared[se.Name.Local] {
				t.Errorf("element %s is not declared in the XSD", se.Name.Local)
			}
			for _, a := range se.Attr {
				if a.Name.Local != "xmlns" && !declared[a.Name.Local] {
					t.Errorf("attribute %s is not declared in the XSD", a.Name.Local)
				}
			}
		}
	}
}

func TestDecimal(t *testing.T) {
	for _, tc := range []struct{ in, raised string }{
		{"12.35", "13.585"}, {"10.00", "11.00"}, {"0.01", "0.011"}, {"999.99", "1099.989"},
		{"7", "7.7"}, {"  841.12\n", "925.232"}, {"-2.50", "-2.75"},
	} {
		d, err := ParseDecimal(tc.in)
		if err != nil {
			t.Fatalf("ParseDecimal(%q): %v", tc.in, err)
		}
		r, err := d.RaiseTenPercent()
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != tc.raised {
			t.Errorf("%q raised by 10%% = %s, want %s", tc.in, r, tc.raised)
		}
	}
	for _, bad := range []string{"", "abc", "1.2.3", "1e5", "12,50", "$5", "99999999999999999999", "."} {
		if _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) should fail", bad)
		}
	}
	a, _ := ParseDecimal("0.1")
	b, _ := ParseDecimal("0.25")
	if s, _ := a.Add(b); s.String() != "0.35" {
		t.Errorf("0.1 + 0.25 = %s", s)
	}
	if a.Cmp(b) != -1 || b.Cmp(a) != 1 || a.Cmp(Decimal{Unscaled: 100, Scale: 3}) != 0 {
		t.Error("Cmp is wrong")
	}
}

func TestItems(t *testing.T) {
	for _, tc := range []struct{ n, pct, want int }{
		{100, 25, 25}, {100, 0, 0}, {100, 100, 100}, {1000, 50, 500}, {10, 25, 3}, {3, 10, 0}, {0, 50, 0},
	} {
		if got := Items(tc.n, tc.pct); got != tc.want {
			t.Errorf("Items(%d, %d) = %d, want %d", tc.n, tc.pct, got, tc.want)
		}
	}
}
