package driver

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// The interleaved A/B order has A and B once in every pair, so the counts are equal, and which
// goes first is drawn per pair: over 20 seeded pairs both "AB" and "BA" appear. Mutant
// (scripts/mutants.d/interleave-a-first.sed): A always first fails "both orders".
func TestInterleaveOrderRandomizedPerPair(t *testing.T) {
	order := InterleaveOrder(20, rand.New(rand.NewPCG(1, 2)))
	if len(order) != 40 {
		t.Fatalf("20 pairs gave %d trials: %q", len(order), order)
	}
	seen := map[string]int{}
	for i := 0; i < len(order); i += 2 {
		pair := order[i : i+2]
		if pair != "AB" && pair != "BA" {
			t.Fatalf("pair %d is %q, not one A and one B: %q", i/2+1, pair, order)
		}
		seen[pair]++
	}
	if seen["AB"] == 0 || seen["BA"] == 0 {
		t.Errorf("both orders must appear across pairs (randomized per pair), got %v in %q", seen, order)
	}
	if a, b := strings.Count(order, "A"), strings.Count(order, "B"); a != b {
		t.Errorf("unequal counts: %d A, %d B", a, b)
	}
}

// Interleave runs the trials in the order given, gives each side its own repeated results (every
// trial in Repeats, numbered per side) noting the order, keeps going past a trial that returned
// results with an error (a threshold missed) and stops at one that returned none.
func TestInterleaveRunsTheOrder(t *testing.T) {
	var ran []string
	trial := func(_ context.Context, side byte, run int) (*report.Results, error) {
		ran = append(ran, string(side)+string(rune('0'+run)))
		res := report.New("w")
		res.Label = string(side)
		res.Total.TPS = float64(run)
		if side == 'B' && run == 1 {
			return res, &report.ThresholdsFailed{}
		}
		return res, nil
	}
	a, b, err := Interleave(context.Background(), "BAABBA", trial)
	if got := strings.Join(ran, " "); got != "B1 A1 A2 B2 B3 A3" {
		t.Errorf("trials ran %q, want B1 A1 A2 B2 B3 A3", got)
	}
	var tf *report.ThresholdsFailed
	if !errors.As(err, &tf) || !strings.Contains(err.Error(), "trial 1 (B run 1)") {
		t.Errorf("the first trial's threshold error: %v", err)
	}
	for _, r := range []*report.Results{a, b} {
		if r == nil || len(r.Repeats) != 3 || r.Repeats[2].Run != 3 || r.Repeats[0].Total.TPS != 1 {
			t.Fatalf("side results: %+v", r)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "trials interleaved: BAABBA") {
			t.Errorf("%s does not note the order: %q", r.Label, r.Notes)
		}
	}
	ran = nil
	stop := errors.New("no server")
	a, b, err = Interleave(context.Background(), "ABBA", func(ctx context.Context, side byte, run int) (*report.Results, error) {
		if side == 'B' {
			return nil, stop
		}
		return trial(ctx, side, run)
	})
	if !errors.Is(err, stop) || a == nil || len(a.Repeats) != 1 || b != nil || len(ran) != 1 {
		t.Errorf("a trial without results must stop the rest: err %v, a %+v, b %+v, ran %v", err, a, b, ran)
	}
}
