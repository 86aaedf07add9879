package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tradebench/tradebench/internal/untrusted"
)

// ReadFile reads a results file of schema version 2, or of version 1 converted to version 2
// (see fromV1). Anything else is refused with an error naming the file and the problem: not
// JSON, truncated, not a results file, or a schema version this build does not read.
func ReadFile(path string) (*Results, error) {
	b, err := untrusted.ReadFile(path, untrusted.MaxResultsBytes, "results file")
	if err != nil {
		return nil, err
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Decode is ReadFile on bytes already read.
func Decode(b []byte) (*Results, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty file, not a tradebench results file")
	}
	// a results file is anyone's: its nesting is bounded before anything decodes it
	if err := untrusted.CheckJSON(b, untrusted.MaxDepth); err != nil {
		return nil, err
	}
	var head struct {
		SchemaVersion *int   `json:"schema_version"`
		Tool          string `json:"tool"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, notJSON(b, err)
	}
	if head.SchemaVersion == nil {
		return nil, errors.New("no schema_version: not a tradebench results file")
	}
	switch v := *head.SchemaVersion; v {
	case SchemaVersion:
		var r Results
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("not a valid schema version %d results file: %w", v, err)
		}
		return &r, nil
	case 1:
		return fromV1(b)
	default:
		return nil, fmt.Errorf("unknown schema version %d: this tradebench reads versions 1 and 2", v)
	}
}

// notJSON tells a file cut short (a run killed while an older build wrote it, a partial copy)
// from one that is not JSON at all.
func notJSON(b []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Errorf("not a tradebench results file: a JSON %s, where a results file is one JSON object", te.Value)
	}
	if errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(b, " \t\r\n"))) {
		return fmt.Errorf("truncated: the JSON ends after %d bytes", len(b))
	}
	if errors.As(err, &se) {
		return fmt.Errorf("not JSON (at byte %d: %v)", se.Offset, err)
	}
	return fmt.Errorf("not a tradebench results file: %w", err)
}

// v1Settings maps version 1's settings keys to version 2's Settings fields (the same name
// unless listed); keys not here were the workload's own and go to Settings.Workload.
var v1Settings = map[string]string{
	"model": "model", "mode": "mode", "users": "users", "iterations": "iterations", "rate": "rate",
	"max_in_flight": "max_in_flight", "ramp_up": "ramp_up", "steady": "steady", "ramp_down": "ramp_down",
	"think": "think", "keep_connections": "keep_connections", "timeout": "timeout", "run_id": "run_id",
	"seed": "seed", "scenario_source": "scenario_source", "params": "params",
	// the cache sweep and XML Mark wrote these names for the same ideas
	"think_time": "think", "warmup": "ramp_up",
}

// fromV1 converts a version 1 file: the load model's settings become typed Settings (peak_*
// keys become Settings.Peak), the workload's other settings are kept as they were under
// settings.workload; extra.server (the server's configuration) becomes
// disclosure.configuration, and the rest of extra becomes detail, whose keys the workloads'
// version 2 sections kept.
func fromV1(b []byte) (*Results, error) {
	var v1 struct {
		Results
		Settings map[string]json.RawMessage `json:"settings"`
		Extra    map[string]json.RawMessage `json:"extra"`
	}
	if err := json.Unmarshal(b, &v1); err != nil {
		return nil, fmt.Errorf("not a valid schema version 1 results file: %w", err)
	}
	r := v1.Results
	r.SchemaVersion = SchemaVersion
	typed, peak, rest := map[string]json.RawMessage{}, map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, v := range v1.Settings {
		switch name, ok := v1Settings[k]; {
		case ok:
			if _, dup := typed[name]; !dup || name == k {
				typed[name] = v
			}
		case strings.HasPrefix(k, "peak_"):
			peak[strings.TrimPrefix(k, "peak_")] = v
		default:
			rest[k] = v
		}
	}
	if len(peak) > 0 {
		typed["peak"], _ = json.Marshal(peak) // a map of raw JSON always encodes
	}
	tb, _ := json.Marshal(typed)
	if err := json.Unmarshal(tb, &r.Settings); err != nil {
		return nil, fmt.Errorf("schema version 1 settings: %w", err)
	}
	if len(rest) > 0 {
		r.Settings.Workload, _ = json.Marshal(rest)
	}
	if srv, ok := v1.Extra["server"]; ok {
		if r.Disclosure == nil {
			r.Disclosure = &Disclosure{}
		}
		r.Disclosure.Configuration = srv
		delete(v1.Extra, "server")
	}
	if len(v1.Extra) > 0 {
		r.Detail, _ = json.Marshal(v1.Extra)
	}
	return &r, nil
}
