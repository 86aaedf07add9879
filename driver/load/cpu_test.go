package load

import (
	"runtime"
	"testing"
	"time"
)

// A measurement stopped before its window's end (a run that ends at the window's end, racing
// the timer; an interrupted one) measures up to the stop; one stopped before its window began
// has nothing. Mutant: giving up when stopped before the end (as the first version did by
// cancelling): the first case had no usage.
func TestDriverCPUStoppedEarly(t *testing.T) {
	now := time.Now()
	d := watchDriverCPU(now, now.Add(time.Hour))
	for end := time.Now().Add(30 * time.Millisecond); time.Now().Before(end); {
		runtime.Gosched() // use some CPU
	}
	u := d.result()
	if u == nil || u.Cores != runtime.GOMAXPROCS(0) || u.CPUSeconds < 0 || u.Utilisation < 0 {
		t.Fatalf("usage %+v", u)
	}
	if u := watchDriverCPU(now.Add(time.Hour), now.Add(2*time.Hour)).result(); u != nil {
		t.Errorf("a window never reached measured %+v", u)
	}
}
