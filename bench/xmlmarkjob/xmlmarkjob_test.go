package xmlmarkjob

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/xmlmark"
)

// A short real run: every transaction is checked against the preflight result inside the
// runner, so passes with no errors mean every document went through every phase.
func TestRunDOM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the load engine for a second")
	}
	c, err := xmlmark.ParseConfig("dom6-small", []byte(strings.Replace(goodINI, "Validation = 0", "Validation = 50", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	res, err := Run(context.Background(), c, RunOptions{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	tx, ok := res.Transaction("dom")
	if !ok || tx.Pass == 0 || tx.Errors != 0 || len(res.Transactions) != 1 {
		t.Fatalf("transactions %+v, errors %+v", res.Transactions, res.Errors)
	}
	if rs, err := SettingsOf(res); err != nil || res.Workload != "xmlmark" || res.Scenario != "dom6-small" || rs.Serialization != 100 {
		t.Errorf("results identify %q %q %+v (%v)", res.Workload, res.Scenario, rs, err)
	}
	if !strings.Contains(warn.String(), "not supported") || !strings.Contains(strings.Join(res.Notes, "\n"), "Validation = 50 was NOT applied") {
		t.Errorf("validation warning missing: %q / %v", warn.String(), res.Notes)
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
	res, err := Run(context.Background(), c, RunOptions{})
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

func itoa(n int) string { return strconv.Itoa(n) }

func TestValidationIsNotFaked(t *testing.T) {
	c, err := xmlmark.ParseConfig("v", []byte(strings.Replace(goodINI, "Validation = 0", "Validation = 100", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), c, RunOptions{StrictValidation: true}); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("strict validation: %v", err)
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
