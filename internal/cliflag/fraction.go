package cliflag

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// Fraction is a share given as a fraction or a percentage (0.2 or 20%), stored as the fraction
// in the float64 it points at. Max bounds it (0 = no upper bound: a variation may pass 100%);
// negative values are refused. It prints as a percentage, the way users write it.
type Fraction struct {
	V   *float64
	Max float64
}

func (f Fraction) String() string {
	if f.V == nil {
		return ""
	}
	return strconv.FormatFloat(100**f.V, 'g', -1, 64) + "%"
}

// Set reads 0.2 or 20%.
func (f Fraction) Set(s string) error {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return fmt.Errorf("not a number or percentage")
	}
	if pct {
		v /= 100
	}
	switch {
	case v < 0:
		return fmt.Errorf("must not be negative")
	case f.Max > 0 && v > f.Max:
		return fmt.Errorf("not between 0 and %s", Fraction{V: &f.Max})
	}
	*f.V = v
	return nil
}

// AddFraction binds a Fraction flag to p, whose value is its default.
func AddFraction(fs *flag.FlagSet, p *float64, name string, max float64, usage string) {
	fs.Var(Fraction{V: p, Max: max}, name, usage)
}
