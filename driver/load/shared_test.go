package load

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/sut"
)

// TestSharedWithSUTWhenServerIsThisProcess: a run whose system under test is this very process
// (the embedded run: the server's CPU is watched at the driver's own PID) marks the driver's CPU
// as shared, so the driver_cpu rule does not judge the server's work as the driver's; a run
// watching another process does not. Deterministic: no CPU figure is compared, only the mark.
// Mutant load-shared-own-pid: the own-PID check removed (an embedded run judged on driver CPU,
// invalid on any machine busy enough — the weak kill issue 41 names, caught before only by a
// long test on a busy machine).
func TestSharedWithSUTWhenServerIsThisProcess(t *testing.T) {
	w := Func(func(ctx context.Context, it *Iteration) error {
		s := it.StartTx()
		it.Done("tx", s, nil)
		return it.Think(ctx, 10*time.Millisecond)
	})
	run := func(pid int) bool {
		res, err := Run(context.Background(), Config{Users: 1, Steady: 300 * time.Millisecond,
			Resources: []sut.Source{&sut.Proc{ProcName: "server", Pid: pid}}}, w)
		if err != nil {
			t.Fatal(err)
		}
		if res.Driver == nil {
			t.Fatal("the driver's CPU was not measured")
		}
		return res.Driver.SharedWithSUT
	}
	if !run(os.Getpid()) {
		t.Error("the server watched at this process's PID: the driver's CPU not marked as shared with it")
	}
	if run(os.Getppid()) {
		t.Error("the server watched at another PID: the driver's CPU marked as shared")
	}
}
