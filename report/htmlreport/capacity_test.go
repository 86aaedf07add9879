package htmlreport

import (
	"bytes"
	"html"
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

// The comparison page's capacity row uses the capacities' intervals: the same build run twice
// (2,876 and 3,131 TPS, docs/benchmarks.md) is within the noise, "~"; the scenario over REST
// (2,056) is a change, marked worse.
// Mutant (scripts/mutants.d/compare-capacity-uncoloured): the row's change never tested —
// every change uncoloured, as a single number per run was.
func TestCompareCapacityRow(t *testing.T) {
	withPeak := func(tps, half float64) *report.Results {
		r := sample(100)
		r.Peak = &report.PeakSearch{PeakTPS: tps, PeakUsers: 3000, PeakTPSHalf: half, Knee: true,
			Interval: report.NewCapacityInterval(tps, half, tps, tps, 0, 0)}
		return r
	}
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"first", withPeak(2876, 47)}, {"second", withPeak(3131, 144)}, {"rest", withPeak(2056, 40)}}); err != nil {
		t.Fatal(err)
	}
	got := rowCells(t, buf.String(), "Capacity (TPS)")
	if len(got) != 3 || got[1].Class != "noise" || !strings.HasPrefix(got[1].Delta, "+8.9 % ~ (p=") || got[2].Class != "worse" || !strings.HasPrefix(got[2].Delta, "-28.5 % (p=") {
		t.Errorf("capacity row %+v: want the second run ~, the REST run worse", got)
	}
}

// The report's capacity says which interval its ± is: the headline card the capacity with where
// a second run lands, the peak section what the ± is made of; a repeated search's card is the
// median of its searches with where a next search lands, and the section says the figures
// below are the last search's.
func TestReportSaysWhichInterval(t *testing.T) {
	r := searched()
	r.Peak.PeakTPSHalf = 12
	r.Peak.Interval = report.NewCapacityInterval(640, 12, 636, 655, 0, 0)
	var buf bytes.Buffer
	if err := Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(buf.String())
	for _, want := range []string{"<span class=\"value\">640 ± 146</span><span class=\"unit\">±: where a second run lands (95 %) · at 650 users</span>",
		"640 ± 146 TPS at 650 users", "± 146 is where a second run of this build on this machine lands, 95 % (494–786 tps): the confirming run ± 12, the knee between 636 and 655 tps"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q: %s", want, page[strings.Index(page, "<h2>Peak search"):][:1500])
		}
	}
	for i, c := range []float64{600, 640, 700} {
		r.Repeats = append(r.Repeats, report.Repeat{Run: i + 1, PeakTPS: c, Total: r.Total})
	}
	buf.Reset()
	if err := Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	page = html.UnescapeString(buf.String())
	for _, want := range []string{"Capacity, median of 3 searches (TPS)</span><span class=\"value\">640 ± ", "±: where a next search lands (95 %)",
		"the figures below are the last search's"} {
		if !strings.Contains(page, want) {
			t.Errorf("repeated: report lacks %q", want)
		}
	}
}

// The knee band agrees with the text when a step was measured again: 550 users measured past
// the knee, then good, then past the knee again (2 of 3: the first stands), so the text says the
// knee lies between 500 and 550 users — and the band, read from the page, spans 500–550, not
// 550–600 (the middle vote's own "good" taken for the load's). The chart draws 550 users at a
// measurement past the knee.
// Mutant (scripts/mutants.d/capacity-band-any-good-vote): a load good when any measurement of it
// was — the band at 550–600 users.
func TestKneeBandAgreesWithRemeasuredText(t *testing.T) {
	r := sample(100)
	r.Peak = &report.PeakSearch{PeakTPS: 495, PeakUsers: 500, PeakStep: 11, Knee: true,
		StopWhy: "knee between 500 users (last good) and 550 users: throughput stopped rising",
		Steps: []report.PeakStep{
			{Step: 1, Users: 100, TPS: 99, Phase: "grow", Good: true},
			{Step: 2, Users: 200, TPS: 198, Phase: "grow", Good: true},
			{Step: 3, Users: 400, TPS: 396, Phase: "grow", Good: true},
			{Step: 4, Users: 800, TPS: 500, Phase: "grow"},
			{Step: 5, Users: 600, TPS: 500, Phase: "bisect"},
			{Step: 6, Users: 500, TPS: 495, Phase: "bisect", Good: true},
			{Step: 7, Users: 550, TPS: 470, Phase: "bisect"},
			{Step: 8, Users: 500, TPS: 494, Phase: "remeasure", Good: true, Note: "agrees with its first measurement (495.0 tps)"},
			{Step: 9, Users: 550, TPS: 540, Phase: "remeasure", Good: true, Note: "disagrees with its first measurement"},
			{Step: 10, Users: 550, TPS: 468, Phase: "remeasure", Note: "third measurement: 2 of 3 past the knee: the first stands"},
			{Step: 11, Users: 500, TPS: 495, Phase: "confirm"},
		}}
	var buf bytes.Buffer
	if err := Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, "knee between 500 users (last good) and 550 users") {
		t.Fatal("the page does not state the bracket")
	}
	if n := strings.Count(page, `"knee":{"from":500,"to":550}`); n != 2 {
		t.Errorf("%d charts with the knee band at 500–550 users on the page, want 2 (%d at 550–600)", n, strings.Count(page, `"knee":{"from":550,"to":600}`))
	}
	tps := chartByID(t, capacityCharts(r), "capacity-tps")
	for i, x := range tps.X {
		if x == 550 && (tps.Series[0].Values[i] == nil || *tps.Series[0].Values[i] != 468) {
			t.Errorf("550 users drawn at %v, want its standing measurement past the knee (468)", tps.Series[0].Values[i])
		}
	}
}
