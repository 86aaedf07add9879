package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A version 2 file reads back exactly as written, the workload's own sections included, whatever
// their type: the workload decodes them with its own type, after the JSON round trip.
func TestReadFileRoundTrip(t *testing.T) {
	type point struct {
		Keys int     `json:"unique_keys"`
		TPS  float64 `json:"tps"`
	}
	type detail struct {
		Points []point `json:"points"`
	}
	keep := true
	r := New("cacheperf")
	r.StartedAt = time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	r.Settings = Settings{Model: ModelOpen, Rate: 12.5, MaxInFlight: 100, RampUp: "1s", Steady: "1m0s", KeepConnections: &keep,
		Seed: 1<<64 - 1, Params: map[string]string{"users": "10"}, Peak: &PeakSettings{StepDuration: "30s", Start: 1, Step: 2, MaxUsers: 9}}
	want := detail{Points: []point{{Keys: 4, TPS: 1000.25}, {Keys: 200, TPS: 0.1}}}
	var err error
	if r.Detail, err = Section(want); err != nil {
		t.Fatal(err)
	}
	if r.Settings.Workload, err = Section(map[string]int{"items": 200}); err != nil {
		t.Fatal(err)
	}
	r.Disclosure = &Disclosure{Configuration: json.RawMessage(`{"orders":{"mode":"sync"}}`)}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got detail
	if err := DecodeSection(back.Detail, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("detail read back: %+v (%v), want %+v", got, err, want)
	}
	if !reflect.DeepEqual(back.Settings.Peak, r.Settings.Peak) || back.Settings.Seed != r.Settings.Seed || !*back.Settings.KeepConnections ||
		back.Settings.Rate != 12.5 || back.SchemaVersion != SchemaVersion {
		t.Errorf("settings read back: %+v", back.Settings)
	}
	var conf struct {
		Orders struct{ Mode string } `json:"orders"`
	}
	if err := DecodeSection(back.Disclosure.Configuration, &conf); err != nil || conf.Orders.Mode != "sync" {
		t.Errorf("configuration read back: %s", back.Disclosure.Configuration)
	}
	if err := DecodeSection(New("x").Detail, &got); err != ErrNoSection {
		t.Errorf("no detail: %v, want ErrNoSection", err)
	}
}

// Version 1 files convert: the load model's settings are typed, the workload's own settings and
// extra's results keep their names in the workload's sections, and extra.server becomes the
// disclosure's configuration.
func TestReadFileVersion1(t *testing.T) {
	r, err := ReadFile("testdata/v1-drive.json")
	if err != nil {
		t.Fatal(err)
	}
	s := r.Settings
	if r.SchemaVersion != SchemaVersion || s.Model != ModelClosed || s.Users != 50 || s.Think != "1s" || s.RampUp != "30s" ||
		s.Steady != "1m0s" || s.Timeout != "30s" || s.RunID != "k3x9ab" || s.Seed != 1<<64-1 || s.KeepConnections == nil ||
		*s.KeepConnections || s.Params["users"] != "5000" || s.ScenarioSource != "built-in" {
		t.Errorf("settings %+v", s)
	}
	if p := s.Peak; p == nil || *p != (PeakSettings{StepDuration: "30s", Start: 10, Step: 10, MaxUsers: 400}) {
		t.Errorf("peak settings %+v", p)
	}
	if len(s.Workload) != 0 {
		t.Errorf("a drive's settings are all common ones, yet workload settings %s", s.Workload)
	}
	if r.System == nil || r.System.CPUs != 2 || r.System.Go != "go1.26.8" {
		t.Errorf("system %+v", r.System)
	}
	var conf struct {
		Orders string `json:"orders"`
		DB     string `json:"db"`
	}
	if r.Disclosure == nil || DecodeSection(r.Disclosure.Configuration, &conf) != nil || conf.Orders != "sync" || conf.DB != "sqlite" {
		t.Errorf("configuration %+v from %+v", conf, r.Disclosure)
	}
	var d struct {
		Orders struct{ Placed int } `json:"orders"`
		Server json.RawMessage      `json:"server"`
	}
	if err := DecodeSection(r.Detail, &d); err != nil || d.Orders.Placed != 3 || d.Server != nil {
		t.Errorf("detail %s", r.Detail)
	}
	if tx, ok := r.Transaction("login"); !ok || tx.Pass != 10 {
		t.Errorf("transactions %+v", r.Transactions)
	}

	r, err = ReadFile("testdata/v1-sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	s = r.Settings
	if s.Think != "0s" || s.RampUp != "100ms" || s.Users != 4 || s.Steady != "400ms" {
		t.Errorf("sweep settings %+v", s)
	}
	var ws struct {
		Quick bool  `json:"quick"`
		Items int   `json:"items"`
		Keys  []int `json:"keys"`
		Warm  any   `json:"warmup"`
	}
	if err := DecodeSection(s.Workload, &ws); err != nil || !ws.Quick || ws.Items != 200 || len(ws.Keys) != 2 || ws.Warm != nil {
		t.Errorf("sweep workload settings %s", s.Workload)
	}
	var sd struct {
		Points []struct {
			TPS float64 `json:"tps"`
		} `json:"points"`
	}
	if err := DecodeSection(r.Detail, &sd); err != nil || len(sd.Points) != 1 || sd.Points[0].TPS != 1000.5 {
		t.Errorf("sweep detail %s", r.Detail)
	}
	if r.Disclosure != nil {
		t.Errorf("a sweep has no server configuration: %+v", r.Disclosure)
	}
}

// A file `tradebench run` wrote before version 2 (kept as it was written) converts.
func TestReadFileVersion1Run(t *testing.T) {
	r, err := ReadFile("testdata/v1-run.json")
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		Roles  string `json:"roles"`
		Orders string `json:"orders"`
	}
	if r.Settings.Model != ModelClosed || r.Settings.Users != 2 || r.Settings.Params["users"] != "200" || r.Settings.Seed == 0 ||
		r.Disclosure == nil || DecodeSection(r.Disclosure.Configuration, &conf) != nil || conf.Orders != "sync" || conf.Roles == "" || r.Audit == nil || !r.Audit.Passed {
		t.Errorf("converted: settings %+v, configuration %+v, audit %+v", r.Settings, conf, r.Audit)
	}
}

// Anything but a version 1 or 2 results file is refused, naming the file and the problem.
func TestReadFileRefuses(t *testing.T) {
	good, err := os.ReadFile("testdata/v1-drive.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"empty", "", "empty file"},
		{"text", "results: fine\n", "not JSON"},
		{"truncated", string(good[:len(good)/2]), "truncated"},
		{"v3", `{"schema_version": 3, "tool": "tradebench"}`, "unknown schema version 3: this tradebench reads versions 1 and 2"},
		{"v0", `{"schema_version": 0}`, "unknown schema version 0"},
		{"noversion", `{"tool": "wrk"}`, "no schema_version"},
		{"array", `[1, 2]`, "not a tradebench results file: a JSON array, where a results file is one JSON object"},
		{"badtype", `{"schema_version": 2, "settings": {"users": "many"}}`, "not a valid schema version 2 results file"},
		{"badv1", `{"schema_version": 1, "settings": {"users": "many"}}`, "schema version 1 settings"},
	} {
		path := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadFile(path)
		if err == nil || r != nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (results %v), want an error naming %s and saying %q", c.name, err, r != nil, path, c.want)
		}
	}
}
