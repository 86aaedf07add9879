package fleet

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tradebench/tradebench/driver"
)

func scrapeLive(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// sumWhere sums a family's samples whose label name has value (any value when value is "").
func sumWhere(f *dto.MetricFamily, name, value, outcome string) (sum float64, names map[string]bool) {
	names = map[string]bool{}
	for _, m := range f.GetMetric() {
		ok := true
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				names[l.GetValue()] = true
				ok = ok && (value == "" || l.GetValue() == value)
			}
			if l.GetName() == "outcome" {
				ok = ok && l.GetValue() == outcome
			}
		}
		if ok {
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum, names
}

// TestFleetLiveMetrics: in a distributed run the controller's --metrics-listen serves the
// fleet's merged seconds (its totals, transaction "all"), which add up to the merged results'
// series exactly, and an agent's serves its own share per transaction, phase "done" after it.
// Mutants: the controller not feeding its watcher leaves its counter at nothing; the agent not
// watching its plan leaves it without transactions.
func TestFleetLiveMetrics(t *testing.T) {
	b := broker(t)
	tg := newTarget(t)
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	agentAddr := free()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, addr := range []string{agentAddr, ""} {
		a := NewAgent(connect(t, b.URL()), AgentConfig{Name: "live" + string(rune('1'+i)), MetricsListen: addr, Secret: testSecret})
		wg.Go(func() {
			if err := a.Serve(ctx); err != nil {
				t.Errorf("agent: %v", err)
			}
		})
	}
	defer func() { cancel(); wg.Wait() }()

	// the controller's endpoint closes with the run, LiveLinger after it: keep the last scrape
	// of it, and stop at the first that shows the run done (its final counts). The linger is a
	// safety window for a starved scraper: at 1 s the race pass at a load of 43 kept a scrape
	// from before the last seconds were merged.
	var mu sync.Mutex
	var last map[string]*dto.MetricFamily
	stop := make(chan struct{})
	var scraping sync.WaitGroup
	onLive := func(metricsURL, _ string) {
		scraping.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				if f, err := scrapeLive(metricsURL); err == nil {
					mu.Lock()
					last = f
					mu.Unlock()
					if done, _ := sumWhere(f["tradebench_driver_phase"], "phase", "done", ""); done == 1 {
						return
					}
				}
			}
		})
	}
	res, err := driver.Drive(context.Background(), driver.Config{Target: tg.URL, Scenario: writeScenario(t, twoTxScenario), Phases: driver.Phases{Users: 4, Duration: 3 * time.Second}, MetricsListen: "127.0.0.1:0", LiveLinger: 5 * time.Second, OnLive: onLive,
		Distributor: NewController(connect(t, b.URL()), ControllerConfig{Agents: 2, Wait: 30 * time.Second, Secret: testSecret})}, driver.HTTP)
	close(stop)
	scraping.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var series float64
	for _, p := range res.Series {
		series += p.TPS
	}
	if last == nil {
		t.Fatal("the controller's endpoint was never scraped")
	}
	got, names := sumWhere(last["tradebench_driver_transactions_total"], "transaction", "all", "pass")
	if got != series || series == 0 || len(names) != 1 {
		t.Errorf("controller: %v transactions passed under %v; the merged series: %v", got, names, series)
	}
	if done, _ := sumWhere(last["tradebench_driver_phase"], "phase", "done", ""); done != 1 {
		t.Errorf("controller: phase done %v after the run", done)
	}

	mine, err := scrapeLive("http://" + agentAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	pass, txNames := sumWhere(mine["tradebench_driver_transactions_total"], "transaction", "", "pass")
	if pass <= 0 || pass >= series || !txNames["account"] || !txNames["quote"] {
		t.Errorf("agent: %v passed (the fleet: %v) in transactions %v; want its share, per transaction", pass, series, txNames)
	}
	if done, _ := sumWhere(mine["tradebench_driver_phase"], "phase", "done", ""); done != 1 {
		t.Errorf("agent: phase done %v after its share", done)
	}
}
