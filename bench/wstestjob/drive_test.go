package wstestjob

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/wstest"
	"github.com/tradebench/tradebench/wstest/soap"
	"github.com/tradebench/tradebench/wstest/wsserver"
)

func TestINIKeysAndFlagOverride(t *testing.T) {
	var s Settings
	err := ParseINI("t.ini", []byte(`# the old kit's keys
[CONFIG]
Agents = 16
RampUp = 300
SteadyState = 300
RampDown = 10
EchoVoidMix = 10
EchoStructMix = 20
EchoListMix = 30
EchoSyntheticMix = 15
GetOrderMix = 25
ListSize = 100
NumBytes = 2048
`), &s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	want := [wstest.NumOps]int{10, 20, 30, 15, 25}
	if c.Users != 16 || c.RampUp != 300*time.Second || c.Duration != 300*time.Second || c.RampDown != 10*time.Second ||
		c.Mix != want || c.ListSize != 100 || c.NumBytes != 2048 || c.Methodology != Sun || c.Think != nil || !c.KeepAlive {
		t.Fatalf("%+v", c)
	}
	// flags win over the file; --mix replaces the whole mix
	s.Set("Agents", "4", "--agents")
	s.Set("SteadyState", "90s", "--steady")
	if err := SetMix(&s, "EchoStruct=3, GetOrder", "--mix"); err != nil {
		t.Fatal(err)
	}
	s.Set("Methodology", "users", "--methodology")
	c, err = Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	if c.Users != 4 || c.Duration != 90*time.Second || c.Mix != [wstest.NumOps]int{0, 3, 0, 0, 100} || c.Think == nil || c.Think.Mean() != time.Second || c.KeepAlive {
		t.Fatalf("%+v", c)
	}
}

func TestConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ ini, want string }{
		{"Agents = many", "Agents"},
		{"Agentz = 1", `unknown key "Agentz"`},
		{"[CONFIG]\nListSize = -1", "ListSize"},
		{"EchoListMix = 0", "the mix is empty"},
		{"Encoding = corba", "want soap, json or grpc"},
		{"Methodology = fast", "want sun"},
		{"SteadyState = 0", "steady state"},
		{"RampUp = soon", "RampUp"},
		{"Agents = 1\nAgents = 2", "more than once"},
	} {
		var s Settings
		err := ParseINI("x.ini", []byte(tc.ini), &s)
		if err == nil {
			_, err = Resolve(s)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.ini, err, tc.want)
		}
	}
	if err := SetMix(&Settings{}, "Frob=1", "--mix"); err == nil {
		t.Error("--mix Frob accepted")
	}
}

func TestBuiltinsResolve(t *testing.T) {
	names := Builtins()
	if len(names) < 2 {
		t.Fatalf("builtins: %v", names)
	}
	for _, n := range names {
		var s Settings
		name, err := LoadINI(n, &s)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Resolve(s)
		if err != nil || name != n {
			t.Fatalf("%s: %v", n, err)
		}
		if strings.HasPrefix(n, "users") && (c.Methodology != Users || c.Think == nil || c.Think.Mean() != time.Second || c.KeepAlive) {
			t.Errorf("%s: %+v", n, c)
		}
	}
	if _, err := LoadINI("no-such-config", &Settings{}); err == nil || !strings.Contains(err.Error(), "sun-echolist20") {
		t.Errorf("unknown config: %v", err)
	}
}

func startServer(t *testing.T) *wsserver.Running {
	ctx, cancel := context.WithCancel(context.Background())
	r, err := wsserver.Start(ctx, wsserver.Config{Listen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); r.Wait() })
	return r
}

// Short real runs: every encoding under both methodologies, every operation in the mix.
func TestRunEveryEncodingAndMethodology(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real load for a few seconds")
	}
	r := startServer(t)
	for _, enc := range []string{SOAP, JSON, GRPC} {
		for _, meth := range []string{Sun, Users} {
			t.Run(enc+"/"+meth, func(t *testing.T) {
				var s Settings
				s.Set("Methodology", meth, "test")
				s.Set("Encoding", enc, "test")
				s.Set("Agents", "4", "test")
				s.Set("RampUp", "0", "test")
				s.Set("SteadyState", "1.5", "test")
				s.Set("RampDown", "0", "test")
				s.Set("ThinkTime", map[string]string{Sun: "0", Users: "0.05"}[meth], "test")
				s.Set("MessageSize", "5", "test")
				if err := SetMix(&s, "EchoVoid=1,EchoStruct=1,EchoList=1,EchoSynthetic=1,GetOrder=1", "test"); err != nil {
					t.Fatal(err)
				}
				c, err := Resolve(s)
				if err != nil {
					t.Fatal(err)
				}
				c.Target, c.GRPCTarget = "http://"+r.HTTPAddr.String(), r.GRPCAddr.String()
				res, err := Run(context.Background(), *c, driver.Config{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Total.Errors != 0 || len(res.Errors) != 0 {
					t.Fatalf("errors: %+v", res.Errors)
				}
				if len(res.Transactions) != 5 {
					t.Fatalf("transactions %+v", res.Transactions)
				}
				for _, tx := range res.Transactions {
					if tx.Pass == 0 {
						t.Errorf("%s: no passes", tx.Name)
					}
				}
				if ws, err := SettingsOf(res); err != nil || res.Hits == 0 || ws.Encoding != enc || ws.Methodology != meth {
					t.Fatalf("hits %d settings %+v %v", res.Hits, ws, err)
				}
			})
		}
	}
}

// A server that answers with the wrong echo must fail every transaction.
func TestWrongEchoFails(t *testing.T) {
	wrong := soap.AppendResponse(nil, &soap.Message{Op: wstest.EchoList, List: wstest.MakeList(3)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/xml")
		w.Write(wrong)
	}))
	defer srv.Close()
	c := &Config{Encoding: SOAP, Methodology: Sun, Phases: driver.Phases{Users: 2, Duration: 500 * time.Millisecond}, ListSize: 20, KeepAlive: true, Target: srv.URL}
	c.Mix[wstest.EchoList] = 1
	res, err := Run(context.Background(), *c, driver.Config{})
	// nothing passed: the run is invalid, and says so in its results and its error (mutant: the
	// job not judging its results — no verdict, no error)
	var invalid *report.InvalidError
	if !errors.As(err, &invalid) || res == nil || res.Validity == nil || res.Validity.Verdict != report.Invalid {
		t.Fatalf("a run where nothing passed: error %v, verdict %+v", err, res.Validity)
	}
	tx, ok := res.Transaction("EchoList")
	if !ok || tx.Pass != 0 || tx.Errors == 0 || len(res.Errors) == 0 || res.Errors[0].Kind != "wrong echo" {
		t.Fatalf("tx %+v errors %+v", tx, res.Errors)
	}
}
