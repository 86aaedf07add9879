package report

import (
	"time"

	"github.com/tradebench/tradebench/internal/setting"
)

// Limits are the thresholds a user sets on a run, in the units a user gives them (the command
// line's --max-error-rate, --max-p90, --max-p99, --min-tps); Thresholds turns them into the
// criteria the results are checked against (a latency in milliseconds).
type Limits struct {
	// MaxErrorRate is the most failed transactions, a fraction (nil = none: a rate of 0 is a
	// limit, no failure at all).
	MaxErrorRate *float64
	// MaxP90 and MaxP99 bound the percentiles over all transactions; MinTPS is the fewest
	// passed transactions per second (0 = none).
	MaxP90, MaxP99 time.Duration
	MinTPS         float64
}

// Thresholds are the limits set, in the order above; a limit that cannot be one is a
// *setting.Error naming its field.
func (l Limits) Thresholds() ([]Threshold, error) {
	if err := setting.First(setting.NotNegative("MaxP90", l.MaxP90), setting.NotNegative("MaxP99", l.MaxP99),
		setting.NotNegative("MinTPS", l.MinTPS)); err != nil {
		return nil, err
	}
	var ts []Threshold
	if r := l.MaxErrorRate; r != nil {
		if err := setting.Fraction("MaxErrorRate", *r); err != nil {
			return nil, err
		}
		ts = append(ts, MaxErrorRate(*r))
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	if l.MaxP90 > 0 {
		ts = append(ts, MaxP90Ms(ms(l.MaxP90)))
	}
	if l.MaxP99 > 0 {
		ts = append(ts, MaxP99Ms(ms(l.MaxP99)))
	}
	if l.MinTPS > 0 {
		ts = append(ts, MinTPS(l.MinTPS))
	}
	return ts, nil
}
