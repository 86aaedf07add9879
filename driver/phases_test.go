package driver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
)

// TestPhasesStartAt: a run given a start instant begins its ramp-up there, whatever the job (the
// setting is the load shape's, so every workload has it); one more than a day ahead, or long
// past, is refused naming the field. Mutant phases-start-at-dropped: Phases.Load not passing
// StartAt to the engine starts the run at once.
func TestPhasesStartAt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	// A run that started after its instant proves nothing (the setup outlasted the lead, as on
	// a loaded machine): the lead doubles, up to three tries.
	for lead := 1500 * time.Millisecond; lead <= 6*time.Second; lead *= 2 {
		at := time.Now().Add(lead)
		res, err := Drive(context.Background(), Config{URL: srv.URL + "/", NoPreflight: true,
			Phases: Phases{Users: 1, Duration: 300 * time.Millisecond, StartAt: at}}, HTTP)
		if err != nil && res == nil {
			t.Fatal(err)
		}
		if res.StartedAt.Before(at.Add(-10 * time.Millisecond)) {
			t.Fatalf("the run started at %v, before its start instant %v", res.StartedAt, at)
		}
		if res.StartedAt.Before(at.Add(100 * time.Millisecond)) {
			break
		}
		t.Logf("the run started %v after its instant (a lead of %v): again with a longer lead", res.StartedAt.Sub(at), lead)
	}
	for _, bad := range []time.Time{time.Now().Add(48 * time.Hour), time.Now().Add(-time.Hour)} {
		var se *setting.Error
		if err := (Phases{Users: 1, Duration: time.Second, StartAt: bad}).Validate(true); !errors.As(err, &se) || se.Field != "StartAt" {
			t.Errorf("start at %v: %v, want a StartAt error", bad, err)
		}
	}
}

// TestNegativeSettingsNamed: every size, count and duration of a drive whose zero means "none"
// or "the default" refuses a negative value naming its own field (the one check,
// setting.NotNegative, listed once per field in Phases.Validate and Config.Validate).
// Mutant (drive-negative-iterations-passes): Config.Validate without the Iterations check.
func TestNegativeSettingsNamed(t *testing.T) {
	base := Config{URL: "http://127.0.0.1:1/", Phases: Phases{Users: 1, Duration: time.Second}}
	for field, set := range map[string]func(*Config){
		"BodyBudget": func(c *Config) { c.BodyBudget = -1 }, "Timeout": func(c *Config) { c.Timeout = -time.Second },
		"ConnectTimeout": func(c *Config) { c.ConnectTimeout = -time.Second }, "MaxInFlight": func(c *Config) { c.MaxInFlight = -1 },
		"Iterations": func(c *Config) { c.Iterations = -1 }, "RampUp": func(c *Config) { c.RampUp = -time.Second },
		"RampDown": func(c *Config) { c.RampDown = -time.Second }, "Duration": func(c *Config) { c.Duration = -time.Second },
	} {
		c := base
		set(&c)
		var se *setting.Error
		if err := c.Validate(); !errors.As(err, &se) || se.Field != field {
			t.Errorf("negative %s: %v, want an error naming %s", field, err, field)
		}
	}
	if err := base.Validate(); err != nil {
		t.Errorf("a valid drive: %v", err)
	}
}
