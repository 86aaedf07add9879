package report

import (
	"fmt"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// MaxNines is the right end of a percentile distribution plot: p99.999.
const MaxNines = 5

// NinesStep is the spacing of the plot's points on the "number of nines" axis.
const NinesStep = 0.05

// DistPoint is one point of a percentile distribution: the latency at a percentile, placed on
// the "number of nines" axis (HdrHistogram's percentile distribution plot: x = log10(1/(1−q)),
// so p90 is at 1, p99 at 2, p99.9 at 3: the tail gets as much room as the body).
type DistPoint struct {
	Nines      float64 `json:"nines"`
	Percentile float64 `json:"percentile"` // 0…100
	Ms         float64 `json:"ms"`
}

// Nines is the x position of a percentile (0…100) on the distribution plot.
func Nines(percentile float64) float64 { return -math.Log10(1 - percentile/100) }

// PercentileAt is the percentile (0…100) at x nines.
func PercentileAt(nines float64) float64 { return 100 * (1 - math.Pow(10, -nines)) }

// DecodeHistogram decodes a transaction's HDR histogram (latencies in microseconds).
func (t Transaction) DecodeHistogram() (*hdr.Histogram, error) {
	if t.Histogram == "" {
		return nil, fmt.Errorf("transaction %q: no histogram recorded", t.Name)
	}
	h, err := hdr.Decode([]byte(t.Histogram))
	if err != nil {
		return nil, fmt.Errorf("transaction %q: decode its histogram: %w", t.Name, err)
	}
	return h, nil
}

// AllHistogram is every transaction's histogram merged (exactly: they share their bounds):
// the distribution over all transactions. Nil when no transaction recorded one.
func (r *Results) AllHistogram() *hdr.Histogram {
	var all *hdr.Histogram
	for _, t := range r.Transactions {
		h, err := t.DecodeHistogram()
		if err != nil {
			continue
		}
		if all == nil {
			all = h
			continue
		}
		all.Merge(h)
	}
	return all
}

// Distribution is the percentile distribution of a histogram: a point every NinesStep nines
// from p0 up to p99.999, as far as the samples reach (n samples resolve log10(n) nines; beyond,
// every percentile is the maximum, and the plot stops there rather than draw a flat line of
// no information).
func Distribution(h *hdr.Histogram) []DistPoint {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	reach := math.Min(MaxNines, math.Log10(float64(h.TotalCount())))
	var out []DistPoint
	for k := 0; ; k++ {
		x := float64(k) * NinesStep
		if x > reach+1e-9 {
			break
		}
		p := PercentileAt(x)
		out = append(out, DistPoint{Nines: x, Percentile: p, Ms: float64(h.ValueAtQuantile(p)) / 1000})
	}
	return out
}
