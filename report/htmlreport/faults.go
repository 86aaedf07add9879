package htmlreport

import (
	"math"

	"github.com/tradebench/tradebench/report"
)

// faultBand is a fault window on a time chart, drawn as a red band over the points of the
// series that hold it (the point at t holds the second [t-1, t)), named at its top.
type faultBand struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
	Name string  `json:"name"`
}

// faultCharts are the charts the fault windows are shaded on: where a fault's cost shows.
var faultCharts = map[string]bool{"tps": true, "latency": true, "errors": true}

// markFaults shades the run's fault windows on its throughput, latency and errors charts.
func markFaults(charts []chartSpec, r *report.Results) {
	if len(r.Faults) == 0 {
		return
	}
	bands := make([]faultBand, len(r.Faults))
	for i, f := range r.Faults {
		first := math.Floor(f.StartS) + 1
		last := max(first, math.Ceil(f.EndS))
		bands[i] = faultBand{From: first - 0.5, To: last + 0.5, Name: f.Name}
	}
	for i := range charts {
		if faultCharts[charts[i].ID] {
			charts[i].Faults = bands
			charts[i].Note += " Red bands: the fault windows (see Faults below)."
		}
	}
}
