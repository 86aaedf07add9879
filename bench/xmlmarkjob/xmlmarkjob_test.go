package xmlmarkjob

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/xmlmark"
)

// A short real run: every transaction is checked against the preflight result inside the
// runner, so passes with no errors mean every document went through every phase.
func TestRunDOM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the load engine for a second")
	}
	res, warn := runINI(t, "dom6-small", strings.Replace(goodINI, "Validation = 0", "Validation = 50", 1))
	tx, ok := res.Transaction("dom")
	if !ok || tx.Pass == 0 || tx.Errors != 0 || len(res.Transactions) != 1 {
		t.Fatalf("transactions %+v, errors %+v", res.Transactions, res.Errors)
	}
	if rs, err := SettingsOf(res); err != nil || res.Workload != "xmlmark" || res.Scenario != "dom6-small" || rs.Serialization != 100 {
		t.Errorf("results identify %q %q %+v (%v)", res.Workload, res.Scenario, rs, err)
	}
	// Validation = 50 on valid documents: no warning, no error, the validator named
	if d, err := DetailOf(res); err != nil || d.Validator != xmlmark.ValidatorModule || d.Documents[0].Invalid != "" {
		t.Errorf("detail %+v (%v)", d, err)
	}
	if warn != "" || !strings.Contains(strings.Join(res.Notes, "\n"), "Validation = 50%") || !strings.Contains(res.Target, xmlmark.ValidatorModule) {
		t.Errorf("warnings %q, notes %v, target %q", warn, res.Notes, res.Target)
	}
}

func TestRunStreamingMix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the load engine for a second")
	}
	text := strings.NewReplacer("PullParserUsage = 0", "PullParserUsage = 100", "SAXUsage = 0", "SAXUsage = 100",
		"DOMUsage = 100", "DOMUsage = 0", "inv20.xml", "inv50.xml").Replace(goodINI)
	c, err := xmlmark.ParseConfig("sax-small", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), New(c), driver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"sax", "pull"} {
		if tx, ok := res.Transaction(k); !ok || tx.Pass == 0 || tx.Errors != 0 {
			t.Errorf("%s: %+v", k, tx)
		}
	}
	if _, ok := res.Transaction("dom"); ok {
		t.Error("a streaming configuration ran tree transactions")
	}
	if _, err := c.Mix(xmlmark.KindDOM); err == nil {
		t.Error("--only dom accepted for a configuration with DOMUsage 0")
	}
}

// The user loop's kind schedule follows the weights exactly.
func TestMixSchedule(t *testing.T) {
	w := &workload{plan: &xmlmark.Plan{Kinds: []xmlmark.Kind{xmlmark.KindDOM, xmlmark.KindSAX, xmlmark.KindPull}, Weights: []int{50, 100, 50}}}
	u := w.NewUser(3).(*user)
	n := map[xmlmark.Kind]int{}
	for i := 0; i < 400; i++ {
		n[u.nextKind()]++
	}
	if n[xmlmark.KindDOM] != 100 || n[xmlmark.KindSAX] != 200 || n[xmlmark.KindPull] != 100 {
		t.Errorf("mix %v", n)
	}
}

// runINI runs a configuration given as INI text and returns its results and warnings.
func runINI(t *testing.T, name, text string) (*report.Results, string) {
	t.Helper()
	c, err := xmlmark.ParseConfig(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	cfg := New(c)
	cfg.Warn = &warn
	res, err := Run(context.Background(), cfg, driver.Config{})
	var invalid *report.InvalidError
	if err != nil && !errors.As(err, &invalid) {
		t.Fatal(err)
	}
	// every run carries a verdict, and its error says invalid exactly when the verdict does
	// (mutant: the job not judging its results → no verdict)
	if res.Validity == nil || (res.Validity.Verdict == report.Invalid) != (invalid != nil) {
		t.Fatalf("verdict %+v, error %v", res.Validity, err)
	}
	return res, warn.String()
}

// With the generator corrupted (an element the schema does not allow, which no parser minds),
// every validated transaction fails, grouped by the validator's rule and element path, with its
// message as the example; the run warns before it starts and the results carry the verdict.
// Mutants: the job grouping invalid documents under the transaction kind (the group's kind
// lacks the rule); Validation ignored by the worker (every transaction passes).
func TestInvalidDocumentsFailWithValidatorMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the load engine for a second")
	}
	defer xmlmark.CorruptGeneratedForTest(func(doc []byte) []byte {
		return bytes.Replace(doc, []byte("</Summary>\n"), []byte("</Summary>\n  <Signature/>\n"), 1)
	})()
	for _, mix := range []string{"dom", "streaming"} {
		text := strings.Replace(goodINI, "Validation = 0", "Validation = 100", 1)
		if mix == "streaming" {
			text = strings.NewReplacer("PullParserUsage = 0", "PullParserUsage = 100", "SAXUsage = 0", "SAXUsage = 100",
				"DOMUsage = 100", "DOMUsage = 0").Replace(text)
		}
		res, warn := runINI(t, mix, text)
		if res.Validity.Verdict != report.Invalid {
			t.Errorf("%s: nothing passed, yet the verdict is %s", mix, res.Validity.Verdict)
		}
		if res.Total.Pass != 0 || res.Total.Errors == 0 {
			t.Errorf("%s: %d passed, %d failed: want every transaction failed", mix, res.Total.Pass, res.Total.Errors)
		}
		const rule = "invalid: validation.element at /Invoice"
		var n int64
		for _, g := range res.Errors {
			if g.Kind != rule || !strings.Contains(g.Example, rule+": inv20.xml, line ") || !strings.Contains(g.Example, "unexpected child element {"+xmlmark.Namespace+"}Signature") {
				t.Errorf("%s: error group %+v", mix, g)
			}
			n += g.Count
		}
		if n != res.Total.Errors {
			t.Errorf("%s: error groups count %d of %d errors", mix, n, res.Total.Errors)
		}
		if d, err := DetailOf(res); err != nil || !strings.Contains(d.Documents[0].Invalid, "Signature") {
			t.Errorf("%s: detail %+v (%v)", mix, d, err)
		}
		if !strings.Contains(warn, "inv20.xml is not valid against the invoice schema") {
			t.Errorf("%s: warning %q", mix, warn)
		}
	}
}

const goodINI = `[CONFIG]
Agents = 2
PullParserUsage = 0
SAXUsage = 0
DOMUsage = 100
Selection = 50
Validation = 0
ContentModification = 25
StructureModification = 25
Serialization = 100
RampUp = 0
SteadyState = 1
RampDown = 0
XMLDocCount = 1
XML_FILE_1 = inv20.xml
`
