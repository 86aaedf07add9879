package driver

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// MaxRepeat bounds Repeat: more runs than this tell nothing a comparison needs (benchstat's U
// test reaches p < 0.001 from 7 runs a side) and would keep a machine busy for hours by mistake.
const MaxRepeat = 100

func checkRepeat(cfg Config) error {
	switch {
	case cfg.Repeat < 0 || cfg.Repeat > MaxRepeat:
		return setting.Errorf("Repeat", "runs of the same measurement must be between 1 and %d, got %d", MaxRepeat, cfg.Repeat)
	}
	return nil
}

// driveRepeated runs the measurement cfg.Repeat times. Each run is a whole drive (ramp-up,
// steady state, ramp-down) with its own run id (users registered by one run do not collide with
// the next's). A failed threshold or an invalid verdict does not stop the repeats (they are
// results) and is returned for every run it happened in, joined; any other error stops them, and
// the results of the runs so far are returned with it.
func driveRepeated(ctx context.Context, cfg Config, w Workload) (*report.Results, error) {
	n := cfg.Repeat
	var (
		last    *report.Results
		repeats []report.Repeat
		errs    []error  // each run's threshold or verdict failure
		earlier []string // those of runs before the last: the results hold only the last's verdict
	)
	for i := 1; i <= n; i++ {
		if i > 1 && cfg.BetweenRepeats != nil {
			if err := cfg.BetweenRepeats(ctx, i); err != nil {
				return combine(last, repeats), fmt.Errorf("before run %d of %d: %w", i, n, err)
			}
		}
		one := cfg
		one.Repeat, one.BetweenRepeats = 1, nil
		if cfg.RunID != "" {
			one.RunID = cfg.RunID + "-" + strconv.Itoa(i)
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "run %d of %d\n", i, n)
		}
		res, err := driveOnce(ctx, one, w)
		if res == nil {
			return combine(last, repeats), err
		}
		last = res
		repeats = append(repeats, report.RepeatOf(i, res))
		var tf *report.ThresholdsFailed
		var inv *report.InvalidError // an invalid run is a result too: the next repeats still run
		var stop *InterruptedError
		if errors.As(err, &stop) { // the runs so far are kept, the last one's verdict says why it ended
			return combine(last, repeats), err
		}
		if err != nil && !errors.As(err, &tf) && !errors.As(err, &inv) {
			return combine(last, repeats), fmt.Errorf("run %d of %d: %w", i, n, err)
		}
		if err != nil {
			// every run's failure counts, not only the last's: three runs whose first was invalid
			// are not a valid measurement
			err = fmt.Errorf("run %d of %d: %w", i, n, err)
			errs = append(errs, err)
			if i < n {
				earlier = append(earlier, err.Error())
			}
		}
	}
	res := combine(last, repeats)
	if res != nil {
		res.Notes = append(res.Notes, earlier...)
	}
	return res, errors.Join(errs...)
}

func combine(last *report.Results, repeats []report.Repeat) *report.Results {
	if last == nil {
		return nil
	}
	last.Repeats = repeats
	return last
}
