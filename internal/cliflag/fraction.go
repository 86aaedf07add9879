package cliflag

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseFraction reads a share as a fraction or a percentage (0.01 or 1%): never negative, at
// most atMost (1 for a rate; math.Inf(1) where a share may pass 100%, as a variation can).
func ParseFraction(s string, atMost float64) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a number or percentage", s)
	}
	if pct {
		v /= 100
	}
	if v < 0 || v > atMost {
		if atMost == 1 {
			return 0, fmt.Errorf("%q is not between 0 and 1 (0%% and 100%%)", s)
		}
		return 0, fmt.Errorf("%q is not between 0 and %s", s, FormatPercent(atMost))
	}
	return v, nil
}

// FormatPercent writes a fraction as the percentage ParseFraction reads back: 0.01 is "1%".
func FormatPercent(f float64) string { return strconv.FormatFloat(100*f, 'g', -1, 64) + "%" }

// fractionValue is a share flag bound to a float64 (see FractionVar).
type fractionValue struct {
	p      *float64
	atMost float64
}

func (f fractionValue) String() string {
	if f.p == nil {
		return ""
	}
	return FormatPercent(*f.p)
}

func (f fractionValue) Set(s string) error {
	v, err := ParseFraction(s, f.atMost)
	if err == nil {
		*f.p = v
	}
	return err
}

// FractionVar defines a flag that sets *p to a share given as a fraction or a percentage
// (ParseFraction, bounded by atMost); *p's value is the default, shown as a percentage.
func FractionVar(fs *flag.FlagSet, p *float64, name string, atMost float64, usage string) {
	fs.Var(fractionValue{p, atMost}, name, usage)
}
