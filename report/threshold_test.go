package report

import (
	"errors"
	"strings"
	"testing"
)

func TestThresholds(t *testing.T) {
	r := New("x")
	r.Total = Transaction{Count: 1000, Errors: 2, Pass: 998, TPS: 50, P90Ms: 120, P99Ms: 400}
	if err := r.CheckThresholds([]Threshold{MaxErrorRate(0.01), MaxP90Ms(120), MaxP99Ms(500), MinTPS(50)}); err != nil {
		t.Fatalf("all within limits: %v", err)
	}
	if len(r.Thresholds) != 4 || !r.Thresholds[1].Passed || r.Thresholds[0].Actual != 0.002 {
		t.Errorf("results %+v", r.Thresholds)
	}
	err := r.CheckThresholds([]Threshold{MaxErrorRate(0.001), MaxP90Ms(100), MinTPS(60), MaxP99Ms(500)})
	var tf *ThresholdsFailed
	if !errors.As(err, &tf) || len(tf.Failed) != 3 {
		t.Fatalf("failed thresholds: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "max_p90_ms: 120, required <= 100") || !strings.Contains(msg, "min_tps: 50, required >= 60") {
		t.Errorf("message %q", msg)
	}
	if len(r.Thresholds) != 4 || r.Thresholds[3].Passed != true {
		t.Errorf("results replaced, not appended: %+v", r.Thresholds)
	}
}
