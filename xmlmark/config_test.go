package xmlmark

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The XML Mark paper's nine configurations, as printed.
func TestBuiltinConfigs(t *testing.T) {
	want := map[string][6]int{ // Selection, ContentModification, StructureModification, Serialization, DOMUsage, SAX/PullParserUsage
		"DOM1": {25, 0, 0, 0, 100, 0}, "DOM2": {50, 0, 0, 0, 100, 0}, "DOM3": {100, 0, 0, 0, 100, 0},
		"DOM4": {50, 25, 0, 100, 100, 0}, "DOM5": {50, 0, 25, 100, 100, 0}, "DOM6": {50, 25, 25, 100, 100, 0},
		"SAX1": {25, 0, 0, 0, 0, 100}, "SAX2": {50, 0, 0, 0, 0, 100}, "SAX3": {100, 0, 0, 0, 0, 100},
	}
	if got := strings.Join(BuiltinNames(), ","); got != "DOM1,DOM2,DOM3,DOM4,DOM5,DOM6,SAX1,SAX2,SAX3" {
		t.Fatalf("built-ins = %s", got)
	}
	for name, w := range want {
		c, err := LoadConfig(strings.ToLower(name)) // names are case-insensitive
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := [6]int{c.Selection, c.ContentModification, c.StructureModification, c.Serialization, c.DOMUsage, c.SAXUsage}
		if got != w || c.PullParserUsage != c.SAXUsage || c.Validation != 0 || c.Agents != 4 {
			t.Errorf("%s = %+v", name, c)
		}
		if c.RampUp != 180*time.Second || c.SteadyState != 300*time.Second || c.RampDown != 30*time.Second {
			t.Errorf("%s phases %v/%v/%v, want 180s/300s/30s", name, c.RampUp, c.SteadyState, c.RampDown)
		}
		lines := 100
		if strings.HasPrefix(name, "SAX") {
			lines = 1000
		}
		docs, err := c.LoadDocuments()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(docs) != 1 || docs[0].LineItems != lines || docs[0].Source != "generated" {
			t.Errorf("%s documents: %+v", name, docs[0])
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

func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ change, wantKey string }{
		{"Agents = 2=>Agents = many", "Agents"},
		{"Agents = 2=>Agents = 0", "Agents"},
		{"Agents = 2=>", "Agents"},
		{"Selection = 50=>Selection = 150", "Selection"},
		{"Serialization = 100=>Serialization = -1", "Serialization"},
		{"ContentModification = 25=>ContentModification = 25%", "ContentModification"},
		{"SteadyState = 1=>SteadyState = soon", "SteadyState"},
		{"SteadyState = 1=>SteadyState = 0", "SteadyState"},
		{"SteadyState = 1=>", "SteadyState"},
		{"RampUp = 0=>RampUp = -5", "RampUp"},
		{"DOMUsage = 100=>DOMUsage = 0", "DOMUsage"},
		{"XMLDocCount = 1=>XMLDocCount = 2", "XML_FILE_2"},
		{"XMLDocCount = 1=>XMLDocCount = 0", "XMLDocCount"},
		{"XML_FILE_1 = inv20.xml=>XML_FILE_3 = inv20.xml", "XML_FILE_3"},
		{"Selection = 50=>Selecton = 50", "Selecton"},
		{"Agents = 2=>Agents = 2\nAgents = 3", "Agents"},
	} {
		from, to, _ := strings.Cut(tc.change, "=>")
		text := strings.Replace(goodINI, from+"\n", to+"\n", 1)
		if text == goodINI {
			t.Fatalf("bad test: %q not found", from)
		}
		_, err := ParseConfig("t.ini", []byte(text))
		if err == nil {
			t.Errorf("%q: accepted", tc.change)
			continue
		}
		if !strings.Contains(err.Error(), tc.wantKey) {
			t.Errorf("%q: error %q does not name %s", tc.change, err, tc.wantKey)
		}
	}
	if _, err := ParseConfig("t.ini", []byte(goodINI)); err != nil {
		t.Fatalf("good INI rejected: %v", err)
	}
	if _, err := LoadConfig("DOM7"); err == nil || !strings.Contains(err.Error(), "DOM1") {
		t.Errorf("unknown name: %v (should list the built-ins)", err)
	}
}

func TestConfigForms(t *testing.T) {
	// keys without a section, any case, durations with units, the paper's "XML_ FILE_1" spelling
	c, err := ParseConfig("x", []byte("agents = 3\nsaxusage = 1\nsteadystate = 2m\nRampUp = 90s\nXML_ FILE_1 = C:\\kit\\docs\\INV1000.xml\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Agents != 3 || c.SAXUsage != 1 || c.SteadyState != 2*time.Minute || c.RampUp != 90*time.Second || len(c.XMLFiles) != 1 {
		t.Errorf("parsed %+v", c)
	}
	if p, lines, err := c.docSource(0); err != nil || p != "" || lines != 1000 {
		t.Errorf("built-in document from a Windows path: %q %d %v", p, lines, err)
	}
}

func TestDocumentsFromFiles(t *testing.T) {
	dir := t.TempDir()
	data, _ := Generate(7)
	if err := os.WriteFile(filepath.Join(dir, "mine.xml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "bad.xml"), []byte("<Invoice><LineItem>"), 0o644)
	ini := filepath.Join(dir, "run.ini")
	os.WriteFile(ini, []byte(strings.Replace(goodINI, "XMLDocCount = 1\nXML_FILE_1 = inv20.xml", "XMLDocCount = 2\nXML_FILE_1 = mine.xml\nXML_FILE_2 = inv5.xml", 1)), 0o644)
	c, err := LoadConfig(ini)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := c.LoadDocuments()
	if err != nil {
		t.Fatal(err)
	}
	if docs[0].LineItems != 7 || docs[0].Source != filepath.Join(dir, "mine.xml") || docs[1].LineItems != 5 || docs[1].Source != "generated" {
		t.Errorf("documents: %+v %+v", docs[0], docs[1])
	}
	for file, want := range map[string]string{"missing.xml": "XML_FILE_1", "bad.xml": "XML_FILE_1"} {
		c.XMLFiles = []string{file}
		if _, err := c.LoadDocuments(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", file, err)
		}
	}
}

func TestEvery(t *testing.T) {
	for _, pct := range []int{0, 1, 25, 33, 50, 100} {
		n := 0
		for i := int64(0); i < 1000; i++ {
			if every(i, pct) {
				n++
			}
		}
		if n != pct*10 {
			t.Errorf("every(_, %d) chose %d of 1000", pct, n)
		}
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
		w, err := c.Prepare(Mix{DOM: 100})
		if err != nil {
			t.Fatal(err)
		}
		u := w.NewWorker()
		if err := u.Do(KindDOM, 0); err != nil {
			t.Fatal(err)
		}
		if got := len(u.TreeOutput()) > 0; got != tc.want {
			t.Errorf("Validation %d, Serialization %d: serialized = %v", tc.validation, tc.serialization, got)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
