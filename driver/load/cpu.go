package load

import (
	"context"
	"runtime"
	"syscall"
	"time"

	"github.com/tradebench/tradebench/report"
)

// processCPU is this process's CPU time so far (user + system).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// driverCPU measures this process's CPU over the measured window [from, to): the run rules'
// check that the driver was not the bottleneck. Its result is ready once done is closed; nil
// when the window was not reached (an interrupted run) or the CPU could not be read.
type driverCPU struct {
	done  chan struct{}
	usage *report.DriverUsage
}

func watchDriverCPU(ctx context.Context, from, to time.Time) *driverCPU {
	d := &driverCPU{done: make(chan struct{})}
	go func() {
		defer close(d.done)
		if sleepUntil(ctx, from) != nil {
			return
		}
		c0, ok := processCPU()
		t0 := time.Now()
		if !ok || sleepUntil(ctx, to) != nil {
			return
		}
		c1, ok := processCPU()
		wall := time.Since(t0)
		if !ok || wall <= 0 {
			return
		}
		cores := runtime.GOMAXPROCS(0)
		used := (c1 - c0).Seconds()
		d.usage = &report.DriverUsage{CPUSeconds: round3(used), Cores: cores, Utilisation: round3(used / wall.Seconds() / float64(cores))}
	}()
	return d
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// result waits for the measurement.
func (d *driverCPU) result() *report.DriverUsage {
	<-d.done
	return d.usage
}
