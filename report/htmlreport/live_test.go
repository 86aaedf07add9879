package htmlreport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/report"
)

func partial(seconds int) *report.Results {
	r := report.New("http")
	r.Scenario = "quick"
	for i := 1; i <= seconds; i++ {
		r.Series = append(r.Series, report.SeriesPoint{Second: i, Phase: "steady", TPS: float64(100 * i), Hits: int64(100 * i), P90Ms: 2, Users: 4})
	}
	return r
}

func get(t *testing.T, method, url string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDashboardServes: the live page before and during a run, the stream's latest state to a
// viewer (never a backlog), the final report to an open stream and to every page afterwards,
// 404 for the report before the end and 405 for anything but GET. Run with -race: updates and
// viewers run concurrently.
// Mutants: Update not signalling the change leaves the viewer at its first update; Finish not
// ending the stream with "final" leaves the viewer without the report.
func TestDashboardServes(t *testing.T) {
	d := NewDashboard()
	srv := httptest.NewServer(d)
	defer srv.Close()
	if code, body := get(t, http.MethodGet, srv.URL+"/"); code != 200 || !strings.Contains(body, "tradebench live") || !strings.Contains(body, "waiting for the first second") {
		t.Fatalf("page before the first second: %d\n%.500s", code, body)
	}
	if code, _ := get(t, http.MethodGet, srv.URL+"/report"); code != http.StatusNotFound {
		t.Errorf("report before the end: %d, want 404", code)
	}
	if code, _ := get(t, http.MethodPost, srv.URL+"/"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", code)
	}
	d.Update(partial(2))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := sse.Dial(ctx, http.DefaultClient, srv.URL+"/events")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	next := func() sse.Event {
		ev, err := st.Next()
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	points := func(ev sse.Event) int {
		var u struct {
			Second int `json:"second"`
			Charts []struct {
				ID string    `json:"id"`
				X  []float64 `json:"x"`
			} `json:"charts"`
		}
		if ev.Name != "update" || json.Unmarshal([]byte(ev.Data), &u) != nil || len(u.Charts) == 0 || u.Charts[0].ID != "tps" {
			t.Fatalf("event %s: %.300s", ev.Name, ev.Data)
		}
		return len(u.Charts[0].X)
	}
	if n := points(next()); n != 2 {
		t.Errorf("first update: %d seconds, want 2", n)
	}
	go func() {
		for i := 3; i <= 6; i++ {
			d.Update(partial(i))
		}
	}()
	for n := 0; n < 6; {
		n = points(next()) // the latest, possibly skipping some
	}
	if code, body := get(t, http.MethodGet, srv.URL+"/"); code != 200 || !strings.Contains(body, `id="chart-tps"`) {
		t.Errorf("page during the run: %d, no throughput chart", code)
	}
	final := partial(6)
	final.Total = report.Transaction{Name: "total", Count: 10, Pass: 10, TPS: 100}
	if err := d.Finish(final); err != nil {
		t.Fatal(err)
	}
	ev := next()
	var page string
	if ev.Name != "final" || json.Unmarshal([]byte(ev.Data), &page) != nil || !strings.Contains(page, "tradebench report") {
		t.Fatalf("after Finish: event %s %.300s", ev.Name, ev.Data)
	}
	for _, path := range []string{"/", "/report"} {
		if code, body := get(t, http.MethodGet, srv.URL+path); code != 200 || body != page {
			t.Errorf("%s after the run: %d, not the final report", path, code)
		}
	}
	d.Update(partial(7)) // too late: the report stays
	if _, body := get(t, http.MethodGet, srv.URL+"/"); body != page {
		t.Error("an update after the end replaced the final report")
	}
}

// TestDashboardPageDrawnOncePerUpdate: the live page is drawn once per update however many
// viewers fetch it (4 clients fetching / in a loop used to cut a run's TPS from 9,915 to 3,022,
// issue 35). Mutant: dashboard-page-uncached.
func TestDashboardPageDrawnOncePerUpdate(t *testing.T) {
	d := NewDashboard()
	srv := httptest.NewServer(d)
	defer srv.Close()
	d.Update(partial(3))
	var first string
	for i := 0; i < 20; i++ {
		code, body := get(t, "GET", srv.URL+"/")
		if code != 200 || (first != "" && body != first) {
			t.Fatalf("fetch %d: %d, page changed without an update", i, code)
		}
		first = body
	}
	d.Update(partial(4))
	if code, body := get(t, "GET", srv.URL+"/"); code != 200 || body == first {
		t.Errorf("the page after an update is the old one")
	}
	d.mu.Lock()
	n := d.renders
	d.mu.Unlock()
	if n != 2 {
		t.Errorf("21 fetches over 2 updates drew the page %d times, want 2", n)
	}
}
