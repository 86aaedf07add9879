package xmlmark

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// corpusDoc is one document of the agreement corpus and what the test meant it to be (the
// oracle, xmllint, decides; want only catches a variant that did not break what it meant to).
type corpusDoc struct {
	name  string
	data  []byte
	valid bool
}

// replaceOnce replaces the first old with new and fails if old is absent, so every variant
// really differs from the document it was made from.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("corpus variant: %q not found", old)
	}
	return strings.Replace(s, old, new, 1)
}

// corpus generates valid invoices (three sizes, one modified and serialized by the tree
// transaction, edge forms the schema allows) and invalid variants of a small one, each breaking
// one rule of the schema the kit depends on.
func corpus(t *testing.T) []corpusDoc {
	t.Helper()
	gen := func(n int) string {
		b, err := Generate(n)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	small := gen(3)
	docs := []corpusDoc{{"valid-3", []byte(small), true}, {"valid-100", []byte(gen(DOMLines)), true}, {"valid-1", []byte(gen(1)), true}}
	// the tree transaction's output (prices raised, items deleted and appended) must stay valid
	var w TreeWorker
	if _, err := w.Run([]byte(gen(20)), TreeOptions{Selection: 100, ContentModification: 50, StructureModification: 30, Serialize: true}); err != nil {
		t.Fatal(err)
	}
	docs = append(docs, corpusDoc{"valid-dom-modified-20", bytes.Clone(w.Output()), true})

	summaryRe := regexp.MustCompile(`(?s)  <Summary>.*?</Summary>\n`)
	lineItemRe := regexp.MustCompile(`(?s)  <LineItem>.*?</LineItem>\n`)
	priceAmount := regexp.MustCompile(`<PriceAmount>[^<]*</PriceAmount>`).FindString(small)
	noSummary := summaryRe.ReplaceAllString(small, "")
	firstItem := lineItemRe.FindString(noSummary)
	item := regexp.MustCompile(`(?s)    <Item>.*?</Item>\n`).FindString(small)
	price := regexp.MustCompile(`(?s)    <Price Currency="USD">.*?</Price>\n`).FindString(small)
	ext := regexp.MustCompile(`<LineExtensionAmount Currency="USD">[^<]*</LineExtensionAmount>`).FindString(small)
	for _, v := range []struct {
		name string
		doc  string
	}{
		// wrong element order
		{"order-header", replaceOnce(t, small, "    <InvoiceID>INV-2005-000003</InvoiceID>\n    <IssueDate>2005-06-01</IssueDate>\n",
			"    <IssueDate>2005-06-01</IssueDate>\n    <InvoiceID>INV-2005-000003</InvoiceID>\n")},
		{"order-summary-first", replaceOnce(t, noSummary, firstItem, summaryRe.FindString(small)+firstItem)},
		{"order-lineitem", replaceOnce(t, small, item+price, price+item)},
		// missing elements
		{"missing-summary", noSummary},
		{"missing-leaf", replaceOnce(t, small, "    <InvoiceTypeCode>380</InvoiceTypeCode>\n", "")},
		{"empty-lineitems", lineItemRe.ReplaceAllString(small, "")},
		// bad currency pattern ([A-Z]{3}), in attributes and an element
		{"currency-lowercase", replaceOnce(t, small, `<Price Currency="USD">`, `<Price Currency="usd">`)},
		{"currency-long", replaceOnce(t, small, `<Price Currency="USD">`, `<Price Currency="USDX">`)},
		{"currency-element", replaceOnce(t, small, `<DocumentCurrencyCode>USD</DocumentCurrencyCode>`, `<DocumentCurrencyCode>US1</DocumentCurrencyCode>`)},
		{"currency-amount", replaceOnce(t, small, `<PayableAmount Currency="USD">`, `<PayableAmount Currency="12$">`)},
		// non-decimal amounts
		{"amount-two-points", replaceOnce(t, small, priceAmount, `<PriceAmount>12.3.4</PriceAmount>`)},
		{"amount-text", replaceOnce(t, small, priceAmount, `<PriceAmount>abc</PriceAmount>`)},
		{"amount-exponent", replaceOnce(t, small, priceAmount, `<PriceAmount>1.5E2</PriceAmount>`)},
		{"amount-empty", replaceOnce(t, small, priceAmount, `<PriceAmount></PriceAmount>`)},
		{"amount-grouping", replaceOnce(t, small, ext, `<LineExtensionAmount Currency="USD">1,234.00</LineExtensionAmount>`)},
		// missing required attributes
		{"missing-price-currency", replaceOnce(t, small, `<Price Currency="USD">`, `<Price>`)},
		{"missing-unitcode", replaceOnce(t, small, `<InvoicedQuantity unitCode="EA">`, `<InvoicedQuantity>`)},
		{"missing-amount-currency", replaceOnce(t, small, `<TaxTotalAmount Currency="USD">`, `<TaxTotalAmount>`)},
		// unknown elements and attributes
		{"unknown-element", replaceOnce(t, small, "    <DeliveryCity>", "    <Discount>5</Discount>\n    <DeliveryCity>")},
		{"unknown-element-end", replaceOnce(t, small, "</Summary>\n", "</Summary>\n  <Signature/>\n")},
		{"unknown-attribute", replaceOnce(t, small, `<Price Currency="USD">`, `<Price Currency="USD" discount="5">`)},
		// other simple types and content models the schema uses
		{"bad-date", replaceOnce(t, small, `<IssueDate>2005-06-01</IssueDate>`, `<IssueDate>2005-13-01</IssueDate>`)},
		{"bad-positive-integer", replaceOnce(t, small, `<LineID>1</LineID>`, `<LineID>0</LineID>`)},
		{"bad-nonnegative-integer", replaceOnce(t, small, `<LineItemCountNumeric>3</LineItemCountNumeric>`, `<LineItemCountNumeric>-3</LineItemCountNumeric>`)},
		{"wrong-namespace", replaceOnce(t, small, `xmlns="`+Namespace+`"`, `xmlns="urn:other"`)},
		{"no-namespace", replaceOnce(t, small, ` xmlns="`+Namespace+`"`, ``)},
		{"text-in-element-only", replaceOnce(t, small, "<Header>\n", "<Header>stray text\n")},
		{"child-in-simple", replaceOnce(t, small, "<TaxID>91-1144442</TaxID>", "<TaxID><b>91</b></TaxID>")},
	} {
		docs = append(docs, corpusDoc{"invalid-" + v.name, []byte(v.doc), false})
	}
	// valid forms a careless validator might reject: spaces around a decimal, a leading +, no
	// integer part, a prefixed namespace
	docs = append(docs,
		corpusDoc{"valid-decimal-forms", []byte(replaceOnce(t, replaceOnce(t, small, `<TaxPercent>8.25</TaxPercent>`, `<TaxPercent> +8.250 </TaxPercent>`),
			priceAmount, `<PriceAmount>.5</PriceAmount>`)), true},
		corpusDoc{"valid-prefixed-namespace", []byte(strings.NewReplacer("<?", "<?", "</", "</inv:", "<", "<inv:").Replace(
			replaceOnce(t, small, ` xmlns="`+Namespace+`"`, ` xmlns:inv="`+Namespace+`"`))), true})
	return docs
}

// xmllint runs libxml2's xmllint --noout --schema on every document at once and returns each
// one's verdict. The agreement test fails under CI when xmllint is missing (.ci/run installs
// libxml2-utils) and skips elsewhere.
func xmllint(t *testing.T, docs []corpusDoc) map[string]bool {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint is not installed: CI installs it (.ci/run, Debian's libxml2-utils); the validator is checked against it")
		}
		t.Skip("xmllint is not installed (Debian: libxml2-utils)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "invoice.xsd"), []byte(XSD), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--noout", "--schema", "invoice.xsd"}
	for _, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, d.name+".xml"), d.data, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, d.name+".xml")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	// exit status 3 is "a document did not validate"; anything else (a bad schema, 4 = the
	// schema did not compile) is a broken oracle
	if ee, ok := errors.AsType[*exec.ExitError](err); err != nil && (!ok || ee.ExitCode() != 3) {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
	verdict := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutSuffix(line, ".xml validates"); ok {
			verdict[name] = true
		} else if name, ok := strings.CutSuffix(line, ".xml fails to validate"); ok {
			verdict[name] = false
		}
	}
	if len(verdict) != len(docs) {
		t.Fatalf("xmllint gave %d verdicts for %d documents:\n%s", len(verdict), len(docs), out)
	}
	return verdict
}

func newValidator(t *testing.T) *Validator {
	t.Helper()
	s, err := InvoiceSchema()
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestValidatorAgreesWithXmllint checks tradebench's validator against an oracle no one here
// wrote: libxml2's xmllint --schema, on generated valid invoices and variants that each break one
// rule (element order, a missing Summary, an empty LineItem list, a currency pattern, a
// non-decimal amount, a required attribute, an unknown element…).
// Mutant: Validate returning nil for every document (the invalid ones disagree).
func TestValidatorAgreesWithXmllint(t *testing.T) {
	docs := corpus(t)
	oracle := xmllint(t, docs)
	v := newValidator(t)
	var nValid, nInvalid int
	for _, d := range docs {
		want := oracle[d.name]
		if want != d.valid {
			t.Errorf("%s: xmllint says valid = %v, the corpus meant %v (the variant is mis-made)", d.name, want, d.valid)
		}
		err := v.Validate(d.data)
		if got := err == nil; got != want {
			t.Errorf("%s: tradebench says valid = %v (%v), xmllint says %v", d.name, got, err, want)
		}
		if err != nil {
			if _, ok := errors.AsType[*InvalidError](err); !ok {
				t.Errorf("%s: %T is not an *InvalidError", d.name, err)
			}
		}
		if want {
			nValid++
		} else {
			nInvalid++
		}
	}
	if nValid < 5 || nInvalid < 20 {
		t.Errorf("corpus has %d valid and %d invalid documents", nValid, nInvalid)
	}
}

// The error names the rule and the element path (what a user needs to find the fault), and a
// validator is reusable after an invalid document.
// Mutants: Path left empty; the last violation reported instead of the first (the no-line-items
// case reports validation.content).
func TestInvalidErrorNamesRuleAndPath(t *testing.T) {
	v := newValidator(t)
	good, _ := Generate(3)
	for _, tc := range []struct {
		old, new, rule, path string
	}{
		{`<Price Currency="USD">`, `<Price Currency="usd">`, "validation.facet", "/Invoice/LineItem/Price"},
		{`<InvoicedQuantity unitCode="EA">`, `<InvoicedQuantity>`, "validation.attribute", "/Invoice/LineItem/InvoicedQuantity"},
		{"</Summary>\n", "</Summary>\n  <Signature/>\n", "validation.element", "/Invoice"},
		{"<LineID>1</LineID>", "<LineID>x</LineID>", "validation.facet", "/Invoice/LineItem/LineID"},
		// no line items: two violations (Summary unexpected, then a required child missing,
		// validation.content); the first is the one reported
		{"", "", "validation.element", "/Invoice"},
	} {
		bad := bytes.Replace(good, []byte(tc.old), []byte(tc.new), 1)
		if tc.old == "" {
			bad = regexp.MustCompile(`(?s)  <LineItem>.*?</LineItem>\n`).ReplaceAll(good, nil)
		}
		err := v.Validate(bad)
		ie, ok := errors.AsType[*InvalidError](err)
		if !ok {
			t.Errorf("%s: %v", tc.new, err)
			continue
		}
		if ie.Rule != tc.rule || ie.Path != tc.path || ie.Line == 0 || ie.Message == "" {
			t.Errorf("%s: %+v, want rule %s at %s", tc.new, ie, tc.rule, tc.path)
		}
		if msg := ie.Error(); !strings.Contains(msg, tc.rule) || !strings.Contains(msg, tc.path) {
			t.Errorf("message %q lacks the rule or path", msg)
		}
		if err := v.Validate(good); err != nil {
			t.Errorf("the validator rejects a good document after a bad one: %v", err)
		}
	}
}

// Validation is spread evenly over each kind's transactions (as serialization is over tree
// transactions), and only those fail on an invalid document; Validation = 0 validates nothing.
// Mutants: one counter for all kinds (with sax and pull alternating at 50%, sax is never
// validated and pull always); validating in dom transactions only (sax and pull never fail).
func TestValidationShareOfEachKind(t *testing.T) {
	restore := CorruptGeneratedForTest(func(doc []byte) []byte {
		return bytes.Replace(doc, []byte("</Summary>\n"), []byte("</Summary>\n  <Signature/>\n"), 1)
	})
	defer restore()
	for _, pct := range []int{0, 30, 50, 100} {
		c, err := ParseConfig("v", []byte(strings.NewReplacer("Validation = 0", "Validation = "+itoa(pct),
			"PullParserUsage = 0", "PullParserUsage = 100", "SAXUsage = 0", "SAXUsage = 100").Replace(goodINI)))
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Prepare(Mix{DOM: 100, SAX: 100, Pull: 100})
		if err != nil {
			t.Fatal(err)
		}
		if inv := p.Expected[0].Invalid; (inv != nil) != (pct > 0) || (pct > 0 && inv.Path != "/Invoice") {
			t.Errorf("Validation %d: preflight verdict %v", pct, inv)
		}
		// one worker runs tree transactions, another alternates sax and pull as a SAX
		// configuration's users do
		wDOM, wStream := p.NewWorker(), p.NewWorker()
		const n = 20
		fails := map[Kind]int{}
		for i := 0; i < n; i++ {
			for _, k := range []Kind{KindDOM, KindSAX, KindPull} {
				w := wStream
				if k == KindDOM {
					w = wDOM
				}
				err := w.Do(k, 0)
				if err == nil {
					continue
				}
				if _, ok := errors.AsType[*InvalidError](err); !ok {
					t.Fatalf("Validation %d, %s: %v", pct, k, err)
				}
				fails[k]++
			}
		}
		for _, k := range []Kind{KindDOM, KindSAX, KindPull} {
			if fails[k] != n*pct/100 {
				t.Errorf("Validation %d: %d of %d %s transactions failed validation, want %d", pct, fails[k], n, k, n*pct/100)
			}
		}
	}
}

// Config.Check names the field out of range (the command's --validation override goes through it).
// Mutant: Validation left out of Check's list (150 accepted).
func TestCheckValidation(t *testing.T) {
	c, err := ParseConfig("v", []byte(goodINI))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(); err != nil {
		t.Fatalf("a parsed configuration fails Check: %v", err)
	}
	for _, v := range []int{-1, 101} {
		c.Validation = v
		if err := c.Check(); err == nil || !strings.Contains(err.Error(), "Validation = "+itoa(v)) {
			t.Errorf("Validation %d: %v", v, err)
		}
		if _, err := c.Prepare(Mix{DOM: 1}); err == nil {
			t.Errorf("Prepare accepted Validation %d", v)
		}
	}
}

// The validator named in results is the one go.mod requires.
// Mutant: ValidatorModule left at v0.3.0.
func TestValidatorModuleMatchesGoMod(t *testing.T) {
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var req []string
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/jacoelho/xsd" {
			req = append(req, f[0]+" "+f[1])
		}
	}
	sort.Strings(req)
	if len(req) != 1 || req[0] != ValidatorModule {
		t.Errorf("go.mod requires %v, ValidatorModule says %q", req, ValidatorModule)
	}
}
