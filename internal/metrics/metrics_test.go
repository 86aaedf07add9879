package metrics

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

var testRoutes = []string{"/a", "/b"}

func testHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			io.WriteString(w, "ok")
		case "/b":
			http.Error(w, "teapot", http.StatusTeapot)
		default:
			http.NotFound(w, r)
		}
	})
}

// family returns the gathered metric family named name (nil if absent).
func family(t *testing.T, reg *Registry, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

func labels(m *dto.Metric) string {
	var parts []string
	for _, l := range m.GetLabel() {
		parts = append(parts, l.GetName()+"="+l.GetValue())
	}
	return strings.Join(parts, ",")
}

// TestInstrumentCountsAndBoundsRoutes sends real requests over loopback, including a burst of
// random URLs, and checks the counters moved under the declared routes only.
func TestInstrumentCountsAndBoundsRoutes(t *testing.T) {
	reg := NewRegistry()
	srv := httptest.NewServer(reg.Instrument(testHandler(), testRoutes, PathRouter(testRoutes...)))
	defer srv.Close()
	get := func(path string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 3 {
		get("/a")
	}
	get("/b")
	for range 200 {
		get(fmt.Sprintf("/random/%d?x=%d", rand.Int64(), rand.Int64()))
	}
	got := map[string]float64{}
	f := family(t, reg, "tradebench_requests_total")
	if f == nil {
		t.Fatal("no tradebench_requests_total")
	}
	for _, m := range f.GetMetric() {
		got[labels(m)] = m.GetCounter().GetValue()
	}
	want := map[string]float64{"code=200,route=/a": 3, "code=418,route=/b": 1, "code=404,route=other": 200}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests_total = %v, want %v", got, want)
	}
	h := family(t, reg, "tradebench_request_duration_seconds")
	if h == nil {
		t.Fatal("no tradebench_request_duration_seconds")
	}
	var n uint64
	for _, m := range h.GetMetric() {
		n += m.GetHistogram().GetSampleCount()
	}
	if len(h.GetMetric()) != 3 || n != 204 {
		t.Errorf("duration histogram: %d series with %d samples, want 3 (/a, /b, other) with 204", len(h.GetMetric()), n)
	}
	for _, name := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "go_goroutines"} {
		if family(t, reg, name) == nil {
			t.Errorf("no %s: the Go and process collectors must be registered", name)
		}
	}
}

// TestEndpoint scrapes a real endpoint and finds the text format with the request metrics.
func TestEndpoint(t *testing.T) {
	reg := NewRegistry()
	h := reg.Instrument(testHandler(), testRoutes, PathRouter(testRoutes...))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/a", nil))
	ep, err := Listen(context.Background(), "127.0.0.1:0", reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	resp, err := http.Get(ep.URL())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `tradebench_requests_total{code="200",route="/a"} 1`) {
		t.Errorf("scrape: %d\n%.2000s", resp.StatusCode, b)
	}
	resp, err = http.Get("http://" + ep.Addr() + "/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the endpoint serves only %s; /other gave %d", Path, resp.StatusCode)
	}
}

// TestInstrumentAllocatesNothing: once a route has seen its status code, counting a request
// allocates nothing.
func TestInstrumentAllocatesNothing(t *testing.T) {
	reg := NewRegistry()
	h := reg.Instrument(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }), testRoutes, PathRouter(testRoutes...))
	req := httptest.NewRequest("GET", "/a", nil)
	w := nopWriter{}
	h.ServeHTTP(w, req)
	if n := testing.AllocsPerRun(1000, func() { h.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("%v allocations per request, want 0", n)
	}
}

type nopWriter struct{}

func (nopWriter) Header() http.Header         { return nil }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}

// BenchmarkInstrument is the middleware's cost per request (docs/benchmarks.md): the bare
// handler, then the same handler instrumented.
func BenchmarkInstrument(b *testing.B) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	req := httptest.NewRequest("GET", "/a", nil)
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			inner.ServeHTTP(nopWriter{}, req)
		}
	})
	b.Run("two-clock-reads", func(b *testing.B) { // the floor: timing a request reads the clock twice
		var d time.Duration
		for b.Loop() {
			start := time.Since(epoch)
			d += time.Since(epoch) - start
		}
		_ = d
	})
	b.Run("instrumented", func(b *testing.B) {
		h := NewRegistry().Instrument(inner, testRoutes, PathRouter(testRoutes...))
		b.ReportAllocs()
		for b.Loop() {
			h.ServeHTTP(nopWriter{}, req)
		}
	})
	b.Run("instrumented-parallel", func(b *testing.B) {
		h := NewRegistry().Instrument(inner, testRoutes, PathRouter(testRoutes...))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				h.ServeHTTP(nopWriter{}, req)
			}
		})
	})
}

// TestInstrumentBoundsAMisbehavingRouter: even a router that returns the raw path cannot add
// series: the middleware only counts declared routes.
func TestInstrumentBoundsAMisbehavingRouter(t *testing.T) {
	reg := NewRegistry()
	h := reg.Instrument(testHandler(), testRoutes, func(r *http.Request) string { return r.URL.Path })
	for i := range 100 {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", fmt.Sprintf("/x/%d", i), nil))
	}
	f := family(t, reg, "tradebench_requests_total")
	if f == nil || len(f.GetMetric()) != 1 || labels(f.GetMetric()[0]) != "code=404,route=other" {
		t.Errorf("100 random paths made series %v, want only code=404,route=other", f)
	}
}

// TestRecorderKeepsTheWriterFeatures: a handler behind the middleware can still flush, and
// io.Copy into the response reaches the connection's ReadFrom; both count as a 200.
func TestRecorderKeepsTheWriterFeatures(t *testing.T) {
	reg := NewRegistry()
	h := reg.Instrument(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(http.Flusher); !ok {
			t.Error("the wrapped writer is not an http.Flusher")
		}
		if _, ok := w.(io.ReaderFrom); !ok {
			t.Error("the wrapped writer is not an io.ReaderFrom")
		}
		io.Copy(w, strings.NewReader("streamed"))
		w.(http.Flusher).Flush()
	}), testRoutes, PathRouter(testRoutes...))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "streamed" {
		t.Errorf("body %q", b)
	}
	if n, _ := reg.Sum("tradebench_requests_total", map[string]string{"route": "/a", "code": "200"}); n != 1 {
		t.Errorf("requests_total{/a,200} = %v", n)
	}
}
