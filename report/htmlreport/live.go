package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tradebench/tradebench/report"
)

//go:embed assets/live.js
var liveJS string

// Dashboard is the live dashboard of a run: the report drawing itself while the run goes on.
// Its page is laid out by the report's own templates and its charts are the report's charts,
// built by the same code from the results so far and drawn by the same script and uPlot; each
// second the server sends the charts' new data over Server-Sent Events and the page redraws
// them in place. When the run ends the page is replaced by the final report.
//
// It serves GET / (the live page, or the final report once there is one), GET /events (the
// event stream: "update" each second, "final" with the final report) and GET /report (the final
// report; 404 until the run ends). A Dashboard serves any number of viewers; each is sent the
// latest state, never a backlog, so a slow viewer cannot hold the run back or grow a queue.
type Dashboard struct {
	mu      sync.Mutex
	cur     *report.Results
	update  []byte // the latest "update" event's data
	final   []byte // the final report's page, once the run ended
	version int
	changed chan struct{} // closed and replaced at every change
	// page is the live page drawn for pageOf: drawn once a second at most, however many
	// viewers ask (drawn for each request, 4 clients fetching / in a loop cut a run's TPS from
	// 9,915 to 3,022)
	pageOf  *report.Results
	page    []byte
	renders int
}

// NewDashboard returns a dashboard with nothing to show yet.
func NewDashboard() *Dashboard {
	return &Dashboard{changed: make(chan struct{})}
}

// liveUpdate is one "update" event: the run's state and the charts' data as of its last second.
type liveUpdate struct {
	Second int         `json:"second"`
	Phase  string      `json:"phase"`
	TPS    string      `json:"tps"`
	P50    string      `json:"p50"`
	P90    string      `json:"p90"`
	P99    string      `json:"p99"`
	Users  int         `json:"users"`
	Errors int64       `json:"errors"`
	Charts []chartSpec `json:"charts"`
}

// liveView is the live page, before the first update reaches it.
type liveView struct {
	page
	R      *report.Results
	U      liveUpdate
	Charts []chartSpec
}

// ChartData is every chart's data, for the page's script (as the report's).
func (v liveView) ChartData() []chartSpec { return v.Charts }

// LiveJS is the live page's own script: it follows the event stream.
func (liveView) LiveJS() template.JS { return template.JS(liveJS) }

func newLiveUpdate(r *report.Results) liveUpdate {
	u := liveUpdate{Charts: timeCharts(r)}
	_, sutCharts := sutView(r.SUT)
	u.Charts = append(u.Charts, sutCharts...)
	if u.Charts == nil {
		u.Charts = []chartSpec{}
	}
	if n := len(r.Series); n > 0 {
		p := r.Series[n-1]
		u.Second, u.Phase, u.Users, u.Errors = p.Second, p.Phase, p.Users, p.Errors
		// a percentile of too few passed transactions is "—", as in the charts and tables
		pctl := func(q, ms float64) string {
			if v := secondPercentile(r, p.TPS, q, ms); v != nil {
				return report.FormatMs(*v)
			}
			return "—"
		}
		u.TPS, u.P50, u.P90, u.P99 = formatTPS(p.TPS), pctl(50, p.P50Ms), pctl(90, p.P90Ms), pctl(99, p.P99Ms)
	}
	return u
}

// Update shows r, the results so far (its series, its resources, its settings): the dashboard
// keeps r until the next Update and reads it only then and in its handlers, so the caller gives
// it a copy it no longer changes.
func (d *Dashboard) Update(r *report.Results) {
	data, err := json.Marshal(newLiveUpdate(r))
	if err != nil { // the update holds only numbers and strings; nothing to show if it failed
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.final != nil {
		return
	}
	d.cur, d.update = r, data
	d.changedLocked()
}

// Finish shows the final report of r from now on, to new viewers and, through the event
// stream, to the open pages.
func (d *Dashboard) Finish(r *report.Results) error {
	var buf bytes.Buffer
	if err := Render(&buf, r); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.final = buf.Bytes()
	d.changedLocked()
	return nil
}

func (d *Dashboard) changedLocked() {
	d.version++
	close(d.changed)
	d.changed = make(chan struct{})
}

// Finished reports whether the final report is shown.
func (d *Dashboard) Finished() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.final != nil
}

// ServeHTTP serves the page, the event stream and the final report.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/":
		d.livePage(w)
	case "/events":
		d.events(w, r)
	case "/report":
		d.mu.Lock()
		final := d.final
		d.mu.Unlock()
		if final == nil {
			http.Error(w, "the run has not ended: its final report is not written yet", http.StatusNotFound)
			return
		}
		writeHTML(w, final)
	default:
		http.NotFound(w, r)
	}
}

func writeHTML(w http.ResponseWriter, page []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}

func (d *Dashboard) livePage(w http.ResponseWriter) {
	d.mu.Lock()
	cur, final, cached := d.cur, d.final, d.page
	if d.pageOf != cur || cur == nil {
		cached = nil
	}
	d.mu.Unlock()
	if final != nil {
		writeHTML(w, final)
		return
	}
	if cached != nil {
		writeHTML(w, cached)
		return
	}
	latest := cur
	if cur == nil {
		cur = report.New("")
	}
	v := liveView{page: newPage(title(cur)), R: cur, U: newLiveUpdate(cur)}
	v.Title = "live: " + v.Title
	v.Charts = v.U.Charts
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "live.tmpl", v); err != nil {
		http.Error(w, "the dashboard could not be drawn: "+err.Error(), http.StatusInternalServerError)
		return
	}
	d.mu.Lock()
	d.renders++
	if latest != nil && d.cur == latest {
		d.pageOf, d.page = latest, buf.Bytes()
	}
	d.mu.Unlock()
	writeHTML(w, buf.Bytes())
}

// heartbeat keeps an idle stream open through proxies that close silent connections.
const heartbeat = 15 * time.Second

func (d *Dashboard) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	// a stream lasts the run, longer than a server's write timeout: each write gets its own
	// deadline instead, so a viewer that stopped reading is still let go
	rc := http.NewResponseController(w)
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(2 * heartbeat)) }
	deadline()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	sent := -1
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	for {
		d.mu.Lock()
		version, update, final, changed := d.version, d.update, d.final, d.changed
		d.mu.Unlock()
		deadline()
		if version != sent {
			sent = version
			var err error
			switch {
			case final != nil:
				// the page replaces itself with the report: send it whole, so it shows even
				// when the driver has exited by the time the page reads it
				data, _ := json.Marshal(string(final))
				err = writeEvent(w, "final", data)
			case update != nil:
				err = writeEvent(w, "update", update)
			}
			if err != nil {
				return
			}
			fl.Flush()
			if final != nil {
				return
			}
		}
		select {
		case <-changed:
		case <-beat.C:
			deadline()
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return
			}
			fl.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// writeEvent writes one event; data is one line of JSON (json.Marshal escapes newlines).
func writeEvent(w http.ResponseWriter, name string, data []byte) error {
	var b bytes.Buffer
	b.WriteString("event: " + name + "\nid: ")
	b.WriteString(strconv.FormatInt(time.Now().UnixMilli(), 10))
	b.WriteString("\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	_, err := w.Write(b.Bytes())
	return err
}
