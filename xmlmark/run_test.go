package xmlmark

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
)

// A short real run: every transaction is checked against the preflight result inside the
// runner, so passes with no errors mean every document went through every phase.
func TestRunDOM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the load engine for a second")
	}
	c, err := ParseConfig("dom6-small", []byte(strings.Replace(goodINI, "Validation = 0", "Validation = 50", 1)))
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
	c, err := ParseConfig("sax-small", []byte(text))
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
	if _, err := c.Mix(KindDOM); err == nil {
		t.Error("--only dom accepted for a configuration with DOMUsage 0")
	}
}

// The user loop's kind schedule follows the weights exactly.
func TestMixSchedule(t *testing.T) {
	w := &workload{kinds: []Kind{KindDOM, KindSAX, KindPull}, weights: []int{50, 100, 50}}
	u := w.NewUser(3).(*user)
	n := map[Kind]int{}
	for i := 0; i < 400; i++ {
		n[u.nextKind()]++
	}
	if n[KindDOM] != 100 || n[KindSAX] != 200 || n[KindPull] != 100 {
		t.Errorf("mix %v", n)
	}
}

// The XML Mark paper's footnote 1: Sun's 1.0 kit decided serialization by the Validation key. Here the
// Serialization key decides, whatever Validation says.
func TestSerializationKeyNotValidation(t *testing.T) {
	for _, tc := range []struct {
		validation, serialization int
		want                      bool
	}{{0, 100, true}, {100, 0, false}, {100, 100, true}, {0, 0, false}} {
		c, err := ParseConfig("s", []byte(strings.NewReplacer("Validation = 0", "Validation = "+itoa(tc.validation),
			"Serialization = 100", "Serialization = "+itoa(tc.serialization)).Replace(goodINI)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := prepare(c, Mix{DOM: 100})
		if err != nil {
			t.Fatal(err)
		}
		u := w.NewUser(0).(*user)
		if err := u.transaction(KindDOM, w.docs[0], &w.exp[0]); err != nil {
			t.Fatal(err)
		}
		if got := len(u.tree.Output()) > 0; got != tc.want {
			t.Errorf("Validation %d, Serialization %d: serialized = %v", tc.validation, tc.serialization, got)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
