package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzDecode reads any bytes as a results file given to report or report compare: anyone's
// file. Beyond not panicking: a file that decodes writes back and reads again to the same
// bytes (no field is half-read), and the summary and comparison printed of it carry no
// terminal control (ESC, BEL, CR, a C1 control): a label or a name from a stranger's file
// cannot set the terminal's title or forge a line.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	r := New("http")
	r.Label = "evil\x1b]0;owned\x07\u009b2J"
	r.Scenario = "s\r\nverdict: VALID"
	r.StartedAt = time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	r.Transactions = []Transaction{{Name: "buy\x1b[2J", Count: 10, Pass: 9, Errors: 1}}
	r.Total = Transaction{Name: "total", Count: 10, Pass: 9, Errors: 1}
	r.Series = []SeriesPoint{{Second: 1, Phase: "steady", TPS: 10, Errors: 1}}
	r.Errors = []ErrorGroup{{Kind: "status\x1b[31m", Transaction: "buy", Count: 1, Example: "e\x1b[31m"}}
	b, err := json.Marshal(r)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"schema_version":2,"label":"\"\u001b","transactions":[{"name":"\u0085x"}]}`))
	f.Add([]byte(`{"schema_version":2,"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		once, err := json.Marshal(r)
		if err != nil {
			return // a value JSON cannot write (NaN cannot be read, so none here)
		}
		r2, err := Decode(once)
		if err != nil {
			t.Fatalf("a results file read and written cannot be read again: %v\n%s", err, once)
		}
		twice, _ := json.Marshal(r2)
		if !bytes.Equal(once, twice) {
			t.Fatalf("written, read and written again differs:\n%s\n%s", once, twice)
		}
		var out bytes.Buffer
		r.WriteSummary(&out)
		if len(b) < 4096 { // the comparison's statistics cost milliseconds: the fuzzer's small inputs only
			WriteComparison(&out, r, r2)
		}
		s := out.String()
		for i, c := range s {
			if c == 0x1b || c == 0x07 || c == '\r' || c >= 0x80 && c < 0xa0 || c == utf8.RuneError && strings.HasPrefix(s[i:], "\x9b") {
				t.Fatalf("the summary carries a terminal control %U at byte %d:\n%q", c, i, s)
			}
		}
	})
}
