package orders

import (
	"errors"
	"testing"
	"time"
)

// A part that stops with an error closes Failed and says which part; one that stops cleanly
// (on shutdown) does not; a nil Running never fails.
func TestRunningFailed(t *testing.T) {
	r := &Running{}
	r.goRun(func() error { return nil }, nil, "relay")
	r.wg.Wait()
	select {
	case <-r.Failed():
		t.Fatal("a clean stop closed Failed")
	default:
	}
	boom := errors.New("consumer gone")
	r.goRun(func() error { return boom }, nil, "order processor")
	select {
	case <-r.Failed():
	case <-time.After(5 * time.Second):
		t.Fatal("Failed not closed after a part failed")
	}
	if err := r.Err(); !errors.Is(err, boom) || err.Error() != "order processor: consumer gone" {
		t.Fatalf("Err() = %v", err)
	}
	var none *Running
	if none.Failed() != nil || none.Err() != nil {
		t.Fatal("a nil Running reports a failure")
	}
}
