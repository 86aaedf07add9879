package scenario

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Think is a think-time distribution: a user's pause between transactions.
type Think struct {
	Kind ThinkKind
	A, B time.Duration // fixed: A; uniform: A..B; exponential: mean A
}

// ThinkKind is the shape of a think time.
type ThinkKind uint8

const (
	ThinkNone        ThinkKind = iota
	ThinkFixed                 // always A
	ThinkUniform               // uniform in [A, B]
	ThinkExponential           // negative-exponential with mean A, capped at 10×A
	// ThinkAround is a think time randomized around its mean A: uniform in [A/2, 3A/2], as
	// LoadRunner's default (a random 50–150 % of the recorded think time). "1s" means this:
	// users that all think exactly 1 s after starting together move in lock-step and the run
	// measures a storm of requests every second; "fixed:1s" asks for the exact time.
	ThinkAround
)

// expCap bounds an exponential think at this many means: the cap moves the mean by e^-10
// (0.005%) and keeps one unlucky user from sleeping through a whole short run.
const expCap = 10

// ParseThink reads a think time: "1s" (randomized around 1 s: uniform 0.5–1.5 s),
// "fixed:1s" (exactly 1 s), "0.5s..1.5s" (uniform), "exp:1s" (negative-exponential with that
// mean) or "0" (none).
func ParseThink(s string) (Think, error) {
	s = strings.TrimSpace(s)
	bad := func(err error) (Think, error) {
		return Think{}, fmt.Errorf("think time %q: %v (use 1s, fixed:1s, 0.5s..1.5s, exp:1s or 0)", s, err)
	}
	kind := ThinkAround
	if rest, ok := strings.CutPrefix(s, "fixed:"); ok {
		s, kind = strings.TrimSpace(rest), ThinkFixed
		if strings.Contains(s, "..") || strings.HasPrefix(s, "exp:") {
			return bad(fmt.Errorf("fixed: takes one duration"))
		}
	}
	switch {
	case s == "" || s == "0":
		return Think{}, nil
	case strings.HasPrefix(s, "exp:"):
		d, err := time.ParseDuration(strings.TrimSpace(s[4:]))
		if err != nil {
			return bad(err)
		}
		if d < 0 {
			return bad(fmt.Errorf("negative mean"))
		}
		if d == 0 {
			return Think{}, nil
		}
		return Think{Kind: ThinkExponential, A: d}, nil
	case strings.Contains(s, ".."):
		lo, hi, _ := strings.Cut(s, "..")
		a, err := time.ParseDuration(strings.TrimSpace(lo))
		if err != nil {
			return bad(err)
		}
		b, err := time.ParseDuration(strings.TrimSpace(hi))
		if err != nil {
			return bad(err)
		}
		if a < 0 || b < a {
			return bad(fmt.Errorf("range must be 0 <= low <= high"))
		}
		return Think{Kind: ThinkUniform, A: a, B: b}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return bad(err)
	}
	if d < 0 {
		return bad(fmt.Errorf("negative duration"))
	}
	if d == 0 {
		return Think{}, nil
	}
	return Think{Kind: kind, A: d}, nil
}

// Sample draws one pause from r (the user's random stream, Draws.R).
func (t Think) Sample(r *rand.Rand) time.Duration {
	switch t.Kind {
	case ThinkFixed:
		return t.A
	case ThinkAround:
		return t.A/2 + time.Duration(r.Int64N(int64(t.A)+1))
	case ThinkUniform:
		if t.B == t.A {
			return t.A
		}
		return t.A + time.Duration(r.Int64N(int64(t.B-t.A)+1))
	case ThinkExponential:
		x := r.ExpFloat64()
		if x > expCap {
			x = expCap
		}
		return time.Duration(x * float64(t.A))
	}
	return 0
}

// Mean is the distribution's mean (ignoring the exponential's far-tail cap).
func (t Think) Mean() time.Duration {
	switch t.Kind {
	case ThinkFixed, ThinkExponential, ThinkAround:
		return t.A
	case ThinkUniform:
		return (t.A + t.B) / 2
	}
	return 0
}

// String writes the think time back in ParseThink's syntax.
func (t Think) String() string {
	switch t.Kind {
	case ThinkFixed:
		return "fixed:" + t.A.String()
	case ThinkAround:
		return t.A.String()
	case ThinkUniform:
		return t.A.String() + ".." + t.B.String()
	case ThinkExponential:
		return "exp:" + t.A.String()
	}
	return "0"
}

// ThinkValue is a think time given on a command line (a flag.Value): T points at the setting,
// nil while none is given (the workload keeps its own). It is parsed as it is given, so a
// mistake names the flag at once.
type ThinkValue struct{ T **Think }

func (v ThinkValue) String() string {
	if v.T == nil || *v.T == nil {
		return ""
	}
	return (*v.T).String()
}

func (v ThinkValue) Set(s string) error {
	t, err := ParseThink(s)
	if err != nil {
		return err
	}
	*v.T = &t
	return nil
}

// NeedsUnit tells the command line that a bare number given as a think time lacks its unit
// ("1" is refused with the hint "1s"), as a duration flag's would.
func (ThinkValue) NeedsUnit() bool { return true }
