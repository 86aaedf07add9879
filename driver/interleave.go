package driver

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tradebench/tradebench/report"
)

// An A/B comparison measured as two series of runs one after the other lets the machine's drift
// (a warming cache, a neighbour's job, thermal throttling) fall on one side and look like a
// difference. Interleaving the trials — A and B in each pair, in a random order per pair, equal
// counts — spreads the drift over both alike (randomized multiple interleaved trials, Abedi &
// Brecht 2017).

// InterleaveOrder is the order of n pairs of trials: "A" and "B" once in each pair, which one
// first drawn from rng for each pair ("ABBAAB" for n = 3).
func InterleaveOrder(n int, rng *rand.Rand) string {
	var b strings.Builder
	for range n {
		if rng.IntN(2) == 0 {
			b.WriteString("AB")
		} else {
			b.WriteString("BA")
		}
	}
	return b.String()
}

// Trial runs one measurement of side 'A' or 'B', the run-th of that side (1-based).
type Trial func(ctx context.Context, side byte, run int) (*report.Results, error)

// Interleave runs n trials of A and n of B in the given order (InterleaveOrder's) and returns each
// side's results as a repeated measurement (the last trial's results with every trial in
// Repeats, as --repeat gives), each noting the order. A trial that returns results with an error
// (a threshold missed, an invalid verdict, a failed audit) does not stop the others: its error is
// returned with the rest, joined, each naming its trial. A trial that returns no results, or is
// interrupted, stops the comparison; the results so far are returned with its error.
func Interleave(ctx context.Context, order string, trial Trial) (a, b *report.Results, err error) {
	var (
		last    [2]*report.Results
		repeats [2][]report.Repeat
		errs    []error
	)
	done := func() (*report.Results, *report.Results) {
		note := "trials interleaved: " + order
		for i := range last {
			if last[i] != nil {
				last[i].Repeats = repeats[i]
				last[i].Notes = append(last[i].Notes, note)
			}
		}
		return last[0], last[1]
	}
	for i := range len(order) {
		side := order[i]
		k := int(side - 'A')
		if k != 0 && k != 1 {
			return nil, nil, fmt.Errorf("interleave: the order %q names a side other than A and B", order)
		}
		run := len(repeats[k]) + 1
		res, terr := trial(ctx, side, run)
		if res == nil {
			a, b := done()
			return a, b, errors.Join(append(errs, fmt.Errorf("trial %d (%c run %d): %w", i+1, side, run, terr))...)
		}
		last[k] = res
		repeats[k] = append(repeats[k], report.RepeatOf(run, res))
		var stop *InterruptedError
		if errors.As(terr, &stop) {
			a, b := done()
			return a, b, errors.Join(append(errs, terr)...)
		}
		if terr != nil {
			errs = append(errs, fmt.Errorf("trial %d (%c run %d): %w", i+1, side, run, terr))
		}
	}
	a, b = done()
	return a, b, errors.Join(errs...)
}
