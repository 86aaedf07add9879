package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// A plain writer gets the first line and the last (done == total) however fast the work goes,
// nothing in between inside Every; a terminal gets the bar redrawn in place, ended by a
// newline; updates from several goroutines (a loader's workers) are safe (run with -race).
// (Mutant count-last-line-throttled: the last line waits for Every like the others, so a fast
// load never says it finished.)
func TestCount(t *testing.T) {
	var plain bytes.Buffer
	c := NewCount(&plain, false, "load", "rows")
	c.Every = time.Hour
	c.UnitBytes = 1 << 20
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				c.Update(int64(g*25+i), 200)
			}
		}()
	}
	wg.Wait()
	c.Update(200, 200)
	c.End()
	lines := strings.Split(strings.TrimSuffix(plain.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "load: 100% (200 of 200 rows) ") || !strings.HasSuffix(lines[1], " MiB/s") {
		t.Errorf("plain lines %q, want the first and the last, with MiB/s", lines)
	}

	var tty bytes.Buffer
	c = NewCount(&tty, true, "load", "rows")
	c.Update(15, 30)
	c.Update(30, 30)
	c.End()
	if s := tty.String(); !strings.HasPrefix(s, "\rload [===============               ]  50% 15/30 rows ") ||
		!strings.Contains(s, "\rload [==============================] 100% 30/30 rows ") || !strings.HasSuffix(s, "\n") {
		t.Errorf("terminal output %q", s)
	}

	var none bytes.Buffer
	c = NewCount(nil, false, "load", "rows")
	c.Update(1, 1)
	c.End()
	NewCount(&none, false, "load", "rows").Update(0, 0) // an unknown total draws nothing
	if none.Len() != 0 {
		t.Errorf("drew %q", none.String())
	}
}
