package live

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
)

// Options are a run's live views. Each listens on its own address: bind to 127.0.0.1 (the
// default in the docs' examples) to keep the numbers on the machine, or to a monitoring network's
// address. Both answer only to their own host names (loopback names, the address given, and
// AllowHosts: a DNS-rebinding page cannot read them), hold at most MaxConns connections each, and
// with a Token require it.
type Options struct {
	// MetricsListen is the address of the Prometheus endpoint (GET /metrics); "" for none.
	MetricsListen string
	// Dashboard is the address of the live dashboard (GET /); "" for none.
	Dashboard string
	// Linger keeps both serving this long after the run ends, so a scraper takes the final
	// numbers and an open dashboard its final report (0: they close with the run).
	Linger time.Duration
	// Thresholds judge the verdict so far.
	Thresholds []report.Threshold
	// Log receives the listeners' own errors (nil: slog.Default()).
	Log *slog.Logger
	// Token, if set, is required of every request (?token=, a bearer header, or the cookie the
	// first sets).
	Token string
	// AllowHosts are host names the views answer to besides loopback names and their address.
	AllowHosts []string
	// MaxConns caps each view's open connections (0: httpserve.DefaultMaxConns).
	MaxConns int
}

// guard is the views' Host check and token on the listener given addr.
func (o Options) guard(addr string) httpserve.GuardOptions {
	return httpserve.GuardOptions{Listen: addr, Hosts: o.AllowHosts, Token: o.Token}
}

// Enabled reports whether any live view is asked for.
func (o Options) Enabled() bool { return o.MetricsListen != "" || o.Dashboard != "" }

// Session is one run's live views: a load.Watcher that feeds the metrics and the dashboard.
type Session struct {
	opt      Options
	metrics  *Metrics
	endpoint *metrics.Endpoint
	dash     *htmlreport.Dashboard
	dashSrv  *http.Server
	dashLn   net.Listener
	dashDone chan struct{}
	// Resources, if set, are the system under test's resources for the dashboard when the
	// seconds carry none (a fleet controller's: its agents do not watch the target).
	Resources *sut.Monitor

	// the results so far, for the dashboard: the run's description and its series
	base   report.Results
	series []report.SeriesPoint
	offset int // a peak search's steps each count from 0: the series goes on from the last
}

// Start opens the live views of a run described by base (its workload, scenario, target,
// settings and phases: what the dashboard's charts name and shade). A listener that cannot open
// is an error naming the Config field (MetricsListen, Dashboard), and nothing is left open.
func Start(ctx context.Context, opt Options, base *report.Results) (*Session, error) {
	s := &Session{opt: opt}
	if base != nil {
		s.base = *base
	}
	if opt.MetricsListen != "" {
		s.metrics = New(opt.Thresholds)
		// the phase from the start, before the first second closes
		if s.base.Phases.RampUpSeconds > 0 {
			s.metrics.setPhase("ramp-up")
		} else {
			s.metrics.setPhase("steady")
		}
		g := opt.guard(opt.MetricsListen)
		ep, err := metrics.ListenGuarded(ctx, opt.MetricsListen, s.metrics.Registry(), opt.Log, &g)
		if err != nil {
			return nil, setting.Errorf("MetricsListen", "%v", err)
		}
		s.endpoint = ep
	}
	if opt.Dashboard != "" {
		ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", opt.Dashboard)
		if err != nil {
			s.endpoint.Close()
			return nil, setting.Errorf("Dashboard", "listen on %s: %v", opt.Dashboard, err)
		}
		s.dash = htmlreport.NewDashboard()
		ln = httpserve.MaxConns(ln, opt.MaxConns)
		s.dashLn, s.dashDone = ln, make(chan struct{})
		s.dashSrv = httpserve.New(httpserve.Guard(s.dash, opt.guard(opt.Dashboard)), httpserve.Options{Logger: opt.Log})
		go func() {
			defer close(s.dashDone)
			if err := s.dashSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && opt.Log != nil {
				opt.Log.Error("dashboard stopped", "err", err)
			}
		}()
	}
	return s, nil
}

// Metrics are the session's metrics (nil without MetricsListen).
func (s *Session) Metrics() *Metrics { return s.metrics }

// MetricsURL is the scrape URL ("" without MetricsListen).
func (s *Session) MetricsURL() string { return s.endpoint.URL() }

// DashboardURL is the dashboard's URL ("" without one).
func (s *Session) DashboardURL() string {
	if s.dashLn == nil {
		return ""
	}
	return "http://" + s.dashLn.Addr().String() + "/"
}

// Second feeds one closed second to the metrics and the dashboard. It implements load.Watcher.
func (s *Session) Second(sec *load.Second) {
	if s.metrics != nil {
		s.metrics.Second(sec)
	}
	if s.dash != nil {
		pt := sec.Point
		if n := len(s.series); n > 0 && pt.Second+s.offset <= s.series[n-1].Second {
			s.offset = s.series[n-1].Second + 1 - pt.Second
		}
		pt.Second += s.offset
		s.series = append(s.series, pt)
		r := s.base // a copy: the dashboard keeps it until the next second
		r.Series = s.series[:len(s.series):len(s.series)]
		if sec.Monitor != nil {
			r.SUT = sec.SUT()
		} else {
			r.SUT = s.Resources.Snapshot()
		}
		s.dash.Update(&r)
	}
}

// Finish shows the run's end: the phase "done" and the final verdict in the metrics, the final
// report on the dashboard. res may be nil (the run failed before it measured).
func (s *Session) Finish(res *report.Results) error {
	if s.metrics != nil {
		s.metrics.Done(res)
	}
	if s.dash != nil && res != nil {
		return s.dash.Finish(res)
	}
	return nil
}

// Close waits out Linger (or ctx), then closes the listeners. Nil-safe.
func (s *Session) Close(ctx context.Context) {
	if s == nil {
		return
	}
	if s.opt.Linger > 0 {
		t := time.NewTimer(s.opt.Linger)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	s.endpoint.Close()
	if s.dashSrv != nil {
		// an open page's stream ends with the final event; give it a moment to be written
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if s.dashSrv.Shutdown(sctx) != nil {
			s.dashSrv.Close()
		}
		cancel()
		<-s.dashDone
	}
}
