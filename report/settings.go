package report

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Settings are a run's settings as given: the load model, its phases and the driver's options,
// which every workload shares, and the workload's own settings as a section its package owns.
// Durations are Go duration strings ("1m30s"), as they were given on the command line.
type Settings struct {
	Model       string  `json:"model"`          // ModelClosed or ModelOpen
	Mode        string  `json:"mode,omitempty"` // ModeQuick: one URL, no scenario
	Users       int     `json:"users,omitempty"`
	Iterations  int     `json:"iterations,omitempty"` // per user; 0 = until the phases end
	Rate        float64 `json:"rate,omitempty"`       // open model: iterations started per second
	MaxInFlight int     `json:"max_in_flight,omitempty"`
	RampUp      string  `json:"ramp_up,omitempty"`
	Steady      string  `json:"steady,omitempty"`
	RampDown    string  `json:"ramp_down,omitempty"`
	// Stages is a closed-model load profile in stages as given ("30s:50,1m:200,30s:0"): the
	// users followed it over the whole measured window.
	Stages string `json:"stages,omitempty"`
	Think  string `json:"think,omitempty"`
	// KeepConnections is whether a virtual user keeps its connections and cookies from one
	// iteration to the next (nil: the workload has no such choice).
	KeepConnections *bool             `json:"keep_connections,omitempty"`
	Timeout         string            `json:"timeout,omitempty"`
	RunID           string            `json:"run_id,omitempty"`
	Seed            uint64            `json:"seed,omitempty"`
	ScenarioSource  string            `json:"scenario_source,omitempty"`
	Params          map[string]string `json:"params,omitempty"` // the scenario's parameters as used
	Peak            *PeakSettings     `json:"peak,omitempty"`
	// Workload is the workload's own settings (WSTest's encoding and mix, an XML Mark
	// configuration, a cache sweep's budget...), encoded by the package that owns the workload
	// with its own type: the instrument does not know the systems it measures.
	Workload json.RawMessage `json:"workload,omitempty"`
}

// Load models and modes.
const (
	ModelClosed = "closed"
	ModelOpen   = "open"
	ModeQuick   = "quick"
)

// PeakSettings are the bounds of a peak search (the step-up of users).
type PeakSettings struct {
	StepDuration string `json:"step_duration"`
	Start        int    `json:"start"`
	Step         int    `json:"step"`
	MaxUsers     int    `json:"max_users"`
	MaxP90       string `json:"max_p90,omitempty"`
}

// Section encodes a workload's own section (its settings or its detail) with the workload's
// own type, for Settings.Workload and Results.Detail.
func Section(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the results section: %w", err)
	}
	return b, nil
}

// ErrNoSection is DecodeSection's error when the results have no such section (a results file of
// another workload, or one written before the workload recorded it).
var ErrNoSection = errors.New("the results have no such section")

// DecodeSection decodes a workload's own section into v (a pointer to the workload's type).
func DecodeSection(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return ErrNoSection
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode the results section: %w", err)
	}
	return nil
}

// SectionAs is DecodeSection for a workload's accessor: the section decoded as a T.
func SectionAs[T any](raw json.RawMessage) (T, error) {
	var v T
	err := DecodeSection(raw, &v)
	return v, err
}
