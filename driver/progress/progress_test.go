package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/report"
)

// TestLine: a plain writer gets the first second and then nothing until Every has passed; a
// terminal gets every second redrawn in place; the caller's status and the open model's
// in-flight count are in the line. Mutants: dropping the Every check prints the second point
// too; Open ignored says "users 7".
func TestLine(t *testing.T) {
	var b bytes.Buffer
	l := &Line{W: &b, Every: time.Hour, Label: "buysell", Total: 90 * time.Second, Open: true}
	l.Second(&load.Second{Point: report.SeriesPoint{Second: 61, Phase: "steady", TPS: 120, P90Ms: 4.5, Users: 7, Hits: 300}, Status: "agents 2/3", Dropped: 5})
	l.Second(&load.Second{Point: report.SeriesPoint{Second: 62, Phase: "steady"}})
	l.End()
	want := "buysell [steady    1:01/1:30] agents 2/3  dropped 5  in-flight 7  tps 120  p50 0.0ms  p90 4.5ms  p99 0.0ms  errors 0  hits/s 300\n"
	if b.String() != want {
		t.Fatalf("plain writer got\n%q\nwant\n%q", b.String(), want)
	}

	b.Reset()
	tty := &Line{W: &b, TTY: true, Total: time.Minute}
	tty.Second(&load.Second{Point: report.SeriesPoint{Second: 1, Phase: "ramp-up", Users: 3}})
	tty.Second(&load.Second{Point: report.SeriesPoint{Second: 2, Phase: "ramp-up", Users: 4}})
	tty.End()
	got := b.String()
	if strings.Count(got, "\r\033[K") != 3 || !strings.Contains(got, "[ramp-up   0:02/1:00] users 4") {
		t.Fatalf("terminal got %q", got)
	}
	// no writer: nothing to do, nothing to fail
	(&Line{}).Second(&load.Second{})
}
