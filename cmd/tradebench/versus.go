package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tradebench/tradebench/bench/tradejob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
	"github.com/tradebench/tradebench/report/publish"
)

// DefaultVersusRepeat is the trials a side of --versus runs without --repeat: benchstat's U test
// cannot call a difference significant (p < 0.05) from fewer than 4 runs a side; 5 reach p = 0.008.
const DefaultVersusRepeat = 5

// versusSide is B: A's embedded settings with --versus KEY=VALUE's one change, checked in the
// one place run's own flags are (tradejob.Embedded).
func versusSide(a tradejob.Embedded, key, value string) (tradejob.Embedded, error) {
	b, err := a.Set(key, value)
	var se *setting.Error
	if errors.As(err, &se) {
		if key == "db" {
			value = "…" // a DSN may hold a password
		}
		return b, cliflag.Errorf("--versus %s=%s: %v", key, value, se.Err)
	}
	return b, err
}

// parseVersus splits --versus KEY=VALUE, the key one of keys.
func parseVersus(s string, keys []string) (key, value string, err error) {
	key, value, ok := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || value == "" {
		return "", "", cliflag.Errorf("--versus %q: want KEY=VALUE, the one setting B changes (one of %s), e.g. --versus access=rest", s, strings.Join(keys, ", "))
	}
	if !slices.Contains(keys, key) {
		return "", "", cliflag.Errorf("--versus: unknown setting %q%s: use one of %s", key, suggest.DidYouMean(key, keys), strings.Join(keys, ", "))
	}
	return key, value, nil
}

// versusFiles are where an A/B comparison's files go — --out X.json gives X-A.json, X-B.json
// (each with its report) and X-compare.html; without it, versus-YYYYMMDD-HHMMSS-… in the work
// directory — checked before any load by the one overwrite rule (report/publish).
func versusFiles(pub *publishFlags, workdir string) ([3]string, error) {
	base := strings.TrimSuffix(pub.Out, filepath.Ext(pub.Out))
	if pub.Out == "" {
		base = filepath.Join(workdir, "versus-"+time.Now().UTC().Format("20060102-150405"))
	}
	paths := [3]string{base + "-A.json", base + "-B.json", base + "-compare.html"}
	for _, p := range paths[:2] {
		if err := publishError(pub.To(p).Check()); err != nil {
			return paths, err
		}
	}
	return paths, publishError(publish.CheckOverwrite(pub.Force, paths[2]))
}

// versusLabels names A's and B's results by the one setting they differ in (KEY=VALUE), under
// the run's --label if it has one. A value's credentials are hidden (dsn.Redact, the one
// redaction): a label is stored in the results, titles the reports and the compare page, and is
// printed in the A/B progress lines.
func versusLabels(label, key, a, b string) [2]string {
	labels := [2]string{key + "=" + dsn.Redact(a), key + "=" + dsn.Redact(b)}
	if label != "" {
		labels = [2]string{label + " (A: " + labels[0] + ")", label + " (B: " + labels[1] + ")"}
	}
	return labels
}

// runVersus is --versus for run and drive: n trials of A and n of B, interleaved in a random
// order per pair (driver.InterleaveOrder), each made by trial (side k: 0 for A, 1 for B; one
// whole run of cfg, given as c: one repeat, labelled labels[k]); then each side's results as a
// repeated measurement with its HTML report, the compare page of the two, and the comparison
// printed.
func runVersus(ctx context.Context, pub *publishFlags, cfg driver.Config, labels [2]string, n int, paths [3]string, trial func(ctx context.Context, k int, c driver.Config) (*report.Results, error)) error {
	order := driver.InterleaveOrder(n, rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
	fmt.Fprintf(os.Stderr, "A/B: A is %s, B is %s; %d trials each, interleaved %s\n", labels[0], labels[1], n, order)
	done := 0
	a, b, err := driver.Interleave(ctx, order, func(ctx context.Context, side byte, run int) (*report.Results, error) {
		done++
		k := int(side - 'A')
		fmt.Fprintf(os.Stderr, "trial %d of %d: %c (%s), run %d of %d\n", done, len(order), side, labels[k], run, n)
		c := cfg
		c.Repeat, c.Label = 1, labels[k]
		return trial(ctx, k, c)
	})
	for i, res := range []*report.Results{a, b} {
		err = errors.Join(err, publishError(pub.To(paths[i]).Write(res)))
	}
	if a == nil || b == nil {
		return err
	}
	report.WriteComparison(os.Stdout, a, b)
	writeVersusSides(os.Stdout, labels, [2]*report.Results{a, b}, paths, !pub.NoReport)
	runs := []htmlreport.Run{{Label: labels[0], Results: a}, {Label: labels[1], Results: b}}
	return errors.Join(err, publish.WriteCompare(paths[2], runs, os.Stderr))
}

// writeVersusSides prints each side's verdict, with its reasons (two inconclusive sides make a
// comparison of numbers nobody should trust), and where its results, its report and the compare
// page went.
func writeVersusSides(w io.Writer, labels [2]string, res [2]*report.Results, paths [3]string, reports bool) {
	fmt.Fprintln(w)
	for k, r := range res {
		fmt.Fprintf(w, "%c (%s): %s\n", 'A'+k, labels[k], r.Validity.VerdictLine())
		where := "   results " + paths[k]
		if reports {
			where += ", report " + htmlreport.PathFor(paths[k])
		}
		fmt.Fprintln(w, where)
	}
	if res[0].Validity == nil || res[1].Validity == nil || res[0].Validity.Verdict != report.Valid || res[1].Validity.Verdict != report.Valid {
		fmt.Fprintln(w, "a side that is not valid: its numbers, and the comparison's, carry its verdict's doubt")
	}
	fmt.Fprintf(w, "comparison: %s\n", paths[2])
}

// versusRepeat is the trials a side of --versus runs: --repeat if given, else DefaultVersusRepeat.
func versusRepeat(repeat int, given bool) (int, error) {
	if !given {
		repeat = DefaultVersusRepeat
	}
	if repeat < 1 || repeat > driver.MaxRepeat {
		return 0, cliflag.Errorf("--repeat: --versus runs this many trials of each side: between 1 and %d, got %d", driver.MaxRepeat, repeat)
	}
	return repeat, nil
}
