package load

import (
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
// check that the driver was not the bottleneck. stop ends the measurement early (the run ended
// at or before to: a run without ramp-down ends exactly at to, an interrupted one before);
// result is nil when the window was never reached or the CPU could not be read.
type driverCPU struct {
	stop  chan struct{}
	done  chan struct{}
	usage *report.DriverUsage
}

func watchDriverCPU(from, to time.Time) *driverCPU {
	d := &driverCPU{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(d.done)
		wait := func(t time.Time) bool { // false: stopped first
			tm := time.NewTimer(time.Until(t))
			defer tm.Stop()
			select {
			case <-tm.C:
				return true
			case <-d.stop:
				return false
			}
		}
		if !wait(from) {
			return
		}
		c0, ok := processCPU()
		t0 := time.Now()
		if !ok {
			return
		}
		wait(to)
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

// result ends the measurement (the run is over) and returns it.
func (d *driverCPU) result() *report.DriverUsage {
	close(d.stop)
	<-d.done
	return d.usage
}
