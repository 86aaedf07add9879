package htmlreport

import (
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// searched is a capacity search as driver/peak records it: growth to 800 users (flat: past the
// knee), bisection to a knee between 650 and 700 users, the peak (the least load on the
// plateau) at 650, confirmed by a longer run there; the p90 bound 500 ms.
func searched() *report.Results {
	r := sample(100)
	r.Settings.Peak = &report.PeakSettings{MaxP90: "500ms"}
	r.Peak = &report.PeakSearch{PeakTPS: 640, PeakUsers: 650, PeakStep: 8, Knee: true, PeakP90Ms: 310,
		StopWhy: "knee between 650 users (last good) and 700 users: p90 612.0 ms at 700 users crossed the 500ms bound",
		Steps: []report.PeakStep{
			{Step: 1, Users: 100, TPS: 99, P90Ms: 20, Phase: "grow", Good: true},
			{Step: 2, Users: 200, TPS: 198, P90Ms: 25, Phase: "grow", Good: true},
			{Step: 3, Users: 400, TPS: 395, P90Ms: 60, Phase: "grow", Good: true},
			{Step: 4, Users: 800, TPS: 650, P90Ms: 900, Phase: "grow"},
			{Step: 5, Users: 600, TPS: 590, P90Ms: 200, Phase: "bisect", Good: true},
			{Step: 6, Users: 700, TPS: 655, P90Ms: 612, Phase: "bisect"},
			{Step: 7, Users: 650, TPS: 636, P90Ms: 330, Phase: "bisect", Good: true},
			{Step: 8, Users: 650, TPS: 640, P90Ms: 310, Phase: "confirm"},
		}}
	return r
}

func chartByID(t *testing.T, cs []chartSpec, id string) chartSpec {
	t.Helper()
	for _, c := range cs {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no chart %q", id)
	return chartSpec{}
}

func seriesByLabel(c chartSpec, prefix string) *seriesSpec {
	for i := range c.Series {
		if strings.HasPrefix(c.Series[i].Label, prefix) {
			return &c.Series[i]
		}
	}
	return nil
}

// TestCapacityChartsAgreeWithTheText: the knee band spans the stop reason's "between 650 and
// 700 users" (it was drawn at the peak's load, disagreeing with the text); the p90 chart has
// the 500 ms bound as a line and both charts the confirming run as a point of its own; the
// caption names the bracket. Mutants: capacity-band-at-peak (the band at PeakUsers ± 1 %, the
// old code), capacity-no-confirm-point, capacity-no-bound-line.
func TestCapacityChartsAgreeWithTheText(t *testing.T) {
	r := searched()
	cs := capacityCharts(r)
	tpsC, p90C := chartByID(t, cs, "capacity-tps"), chartByID(t, cs, "capacity-p90")
	for _, c := range []chartSpec{tpsC, p90C} {
		if c.Knee == nil || c.Knee.From != 650 || c.Knee.To != 700 {
			t.Errorf("%s: knee band %+v, want 650 to 700 users as the text says", c.ID, c.Knee)
		}
		confirm := seriesByLabel(c, "confirming run")
		if confirm == nil || confirm.Style != stylePoints {
			t.Fatalf("%s: no confirming run drawn as a point: %+v", c.ID, c.Series)
		}
		n := 0
		for i, v := range confirm.Values {
			if v != nil {
				n++
				if c.X[i] != 650 {
					t.Errorf("%s: the confirming run plotted at %v users, want 650", c.ID, c.X[i])
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: the confirming run has %d points, want 1", c.ID, n)
		}
	}
	if v := *seriesByLabel(tpsC, "confirming run"); *v.Values[indexOf(tpsC.X, 650)] != 640 {
		t.Errorf("the confirming run's TPS is not its own")
	}
	bound := seriesByLabel(p90C, "p90 bound")
	if bound == nil || bound.Style != styleBound {
		t.Fatalf("no p90 bound line: %+v", p90C.Series)
	}
	for _, v := range bound.Values {
		if v == nil || *v != 500 {
			t.Fatalf("the bound line is not at 500 ms everywhere: %v", v)
		}
	}
	if !strings.Contains(tpsC.Note, "between 650 users") || !strings.Contains(tpsC.Note, "and 700 users") {
		t.Errorf("the caption does not name the knee's bracket: %q", tpsC.Note)
	}
}

// TestCapacityCaptionClaimsNoKneeItDidNotFind: a search that ran out of load still rising has
// no band and a caption that says so — not "the band marks where throughput stops rising" over a
// rising curve. Mutant: capacity-knee-claimed (band and caption whatever p.Knee says).
func TestCapacityCaptionClaimsNoKneeItDidNotFind(t *testing.T) {
	r := searched()
	r.Peak.Knee = false
	r.Peak.StopWhy = "reached the maximum of 800 users still rising: the knee is beyond it"
	for i := range r.Peak.Steps {
		r.Peak.Steps[i].Good = r.Peak.Steps[i].Phase != "confirm"
	}
	for _, c := range capacityCharts(r) {
		if c.Knee != nil {
			t.Errorf("%s: a knee band on a search that found none", c.ID)
		}
		if strings.Contains(c.Note, "stops rising") || strings.Contains(c.Note, "The band") {
			t.Errorf("%s: the caption claims a knee: %q", c.ID, c.Note)
		}
	}
	if c := chartByID(t, capacityCharts(r), "capacity-tps"); !strings.Contains(c.Note, "did not reach a knee") {
		t.Errorf("the caption does not say the search found no knee: %q", c.Note)
	}
}

func indexOf(xs []float64, v float64) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}
