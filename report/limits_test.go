package report

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
)

// TestLimits: each limit set becomes its threshold (a duration in milliseconds), an unset one
// none — but an error rate of 0 is a limit; a limit out of range names its field.
// Mutant (limits-p90-in-seconds): the p90 bound converted to seconds, not milliseconds.
func TestLimits(t *testing.T) {
	ts, err := Limits{MaxErrorRate: new(0.005), MaxP90: 1500 * time.Millisecond, MinTPS: 20}.Thresholds()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range ts {
		got = append(got, th.String())
	}
	want := []string{MaxErrorRate(0.005).String(), MaxP90Ms(1500).String(), MinTPS(20).String()}
	if !reflect.DeepEqual(got, want) || ts[0].Limit != 0.005 || ts[1].Limit != 1500 {
		t.Errorf("thresholds %v, want %v", got, want)
	}
	if ts, err := (Limits{MaxErrorRate: new(0.0)}).Thresholds(); err != nil || len(ts) != 1 || ts[0].Limit != 0 {
		t.Errorf("an error rate of 0: %v, %v", ts, err)
	}
	if ts, _ := (Limits{}).Thresholds(); len(ts) != 0 {
		t.Errorf("no limits: %v", ts)
	}
	for field, l := range map[string]Limits{"MaxErrorRate": {MaxErrorRate: new(1.5)}, "MaxP99": {MaxP99: -time.Second}, "MinTPS": {MinTPS: -1}} {
		var se *setting.Error
		if _, err := l.Thresholds(); !errors.As(err, &se) || se.Field != field {
			t.Errorf("%+v: %v, want an error naming %s", l, err, field)
		}
	}
}
