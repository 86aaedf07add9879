// Package recorder records a load run's measurements: an HDR histogram per transaction, counts,
// status codes, bytes, error groups and a per-second series. Recording is sharded so thousands of
// goroutines record without contending on one lock, and shards are merged exactly (histograms are
// added bucket by bucket, never averaged from summaries).
package recorder

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tradebench/tradebench/report"
)

// Histogram bounds: microsecond resolution, up to 10 minutes, 3 significant figures (0.1%).
const (
	LowestMicros  = 1
	HighestMicros = 600_000_000
	SigFigs       = 3
	seriesSigFigs = 2 // per-second histograms are reset every tick; 1% is plenty for a graph
)

// NewHistogram returns a histogram with the kit's standard bounds.
func NewHistogram() *hdr.Histogram { return hdr.New(LowestMicros, HighestMicros, SigFigs) }

// NewSeriesHistogram returns a histogram for one second of the series: 2 significant figures,
// plenty for a graph and cheap to send (agents stream one a second).
func NewSeriesHistogram() *hdr.Histogram { return hdr.New(LowestMicros, HighestMicros, seriesSigFigs) }

// Record adds a duration to h, clamped into the trackable range.
func Record(h *hdr.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < LowestMicros {
		us = LowestMicros
	}
	if us > HighestMicros {
		us = HighestMicros
	}
	_ = h.RecordValue(us) // cannot fail: clamped into range
}

// Kinded errors group by Kind() in the error table instead of by message, so errors that differ
// only in a URL or id fall into one group.
type Kinded interface {
	error
	Kind() string
}

// Failure is an error with a kind for grouping and a detail for the example.
type Failure struct {
	K      string
	Detail string
}

func (f *Failure) Error() string { return f.K + ": " + f.Detail }
func (f *Failure) Kind() string  { return f.K }

// Failf makes a Failure of a kind.
func Failf(kind, format string, args ...any) error {
	return &Failure{K: kind, Detail: fmt.Sprintf(format, args...)}
}

// Recorder collects a run's measurements. Set the measured window with SetWindow before any
// recording; then record through shards from any number of goroutines; Tick once a second;
// Results at the end.
type Recorder struct {
	shards      []*Shard
	steadyStart time.Time
	steadyEnd   time.Time
	runStart    time.Time

	order atomic.Int64 // see nextOrder

	tickMu  sync.Mutex
	secHist *hdr.Histogram
	// secTxHist is each transaction's histogram of the second being closed (reused)
	secTxHist map[string]*hdr.Histogram
	series    []report.SeriesPoint

	// live, when set by KeepTxSeconds before recording, makes every shard count the current
	// second's outcomes per transaction too (a map lookup more per transaction; the latencies
	// are the series' per-transaction histograms), for the live metrics; off, a run pays
	// nothing for them.
	live    bool
	txSec   map[string]*TxSecond
	txOrder []*TxSecond
	empty   *hdr.Histogram // a TxSecond's Hist when none of it passed
}

// TxSecond is one transaction's second (all phases): its outcomes, the failures that were a
// failed content check, and the passed transactions' latency — the series' own per-transaction
// histogram of the second (2 significant figures), not a second recording. The live metrics
// count it.
type TxSecond struct {
	Name             string
	Pass, Fail, Stop int64
	CheckFailures    int64
	Hist             *hdr.Histogram // empty when none passed
}

// KeepTxSeconds makes the recorder keep each second per transaction, read with TxSeconds after
// each Tick. Call it before any recording.
func (r *Recorder) KeepTxSeconds() {
	r.live = true
	r.txSec = map[string]*TxSecond{}
	r.empty = NewSeriesHistogram()
}

// TxSeconds are the transactions of the second the last Tick closed, in first-seen order
// (a transaction with nothing in it has zero counts): valid until the next Tick, and only to
// the goroutine that calls Tick. Nil unless KeepTxSeconds was called.
func (r *Recorder) TxSeconds() []*TxSecond { return r.txOrder }

// Bytes is the response bytes received so far in every phase (live: Hit counts them only when
// KeepTxSeconds was called; the results' bytes are the measured window's).
func (r *Recorder) Bytes() int64 {
	var n int64
	for _, s := range r.shards {
		n += s.allBytes.Load()
	}
	return n
}

// NewRecorder makes a recorder with n shards (at least 1).
func NewRecorder(n int) *Recorder {
	if n < 1 {
		n = 1
	}
	r := &Recorder{secHist: NewSeriesHistogram(), secTxHist: map[string]*hdr.Histogram{}}
	for i := 0; i < n; i++ {
		r.shards = append(r.shards, &Shard{r: r, tx: map[string]*txAgg{}, otherStatus: map[int]int64{}, errs: map[errKey]*errAgg{},
			sec: NewSeriesHistogram(), secTx: map[string]*hdr.Histogram{}})
	}
	return r
}

// SetWindow sets the run start and the measured (steady-state) window. Only transactions and
// hits that start inside [steadyStart, steadyEnd) count in the summary; the series covers all.
func (r *Recorder) SetWindow(runStart, steadyStart, steadyEnd time.Time) {
	r.runStart, r.steadyStart, r.steadyEnd = runStart, steadyStart, steadyEnd
}

// Shard returns shard i modulo the shard count; give each goroutine a fixed shard.
func (r *Recorder) Shard(i int) *Shard { return r.shards[i%len(r.shards)] }

func (r *Recorder) measured(start time.Time) bool {
	return !start.Before(r.steadyStart) && start.Before(r.steadyEnd)
}

// Shard is one lock's worth of the recorder. Hits are counted without the lock (atomics: a hit
// is only counters), so a request takes the lock once, for its transaction.
type Shard struct {
	r  *Recorder
	mu sync.Mutex

	tx   map[string]*txAgg
	errs map[errKey]*errAgg

	// current second, all phases
	sec       *hdr.Histogram
	secPass   int64
	secErrors int64
	// secTx is each transaction's passed latencies of the current second: the report's latency
	// over time per transaction
	secTx map[string]*hdr.Histogram

	secHits     atomic.Int64
	hits, bytes atomic.Int64
	allBytes    atomic.Int64         // every phase's, live only
	secLive     map[string]*TxSecond // live only: this second's counts per transaction
	// status counts responses by status code (0: no response); codes outside 0..999, which
	// HTTP does not have, are counted in otherStatus under the lock
	status      [1000]atomic.Int64
	otherStatus map[int]int64
}

type txAgg struct {
	h                *hdr.Histogram
	fh               *hdr.Histogram // failed transactions' latencies, kept apart
	pass, fail, stop int64
	order            int // first-seen order, so the table follows the scenario
}

type errKey struct{ tx, kind string }

type errAgg struct {
	count   int64
	example string
	order   int
}

// Outcome classifies err: nil passes; a context cancellation (the run ending) stops; anything
// else fails.
func Outcome(err error) string {
	switch {
	case err == nil:
		return "pass"
	case errors.Is(err, context.Canceled):
		return "stop"
	default:
		return "fail"
	}
}

// nextOrder numbers the transaction names and error groups the recorder's shards meet, in the
// order they first meet them across shards; each recorder counts its own, so two runs in one
// process (a peak search's steps, parallel tests) do not share a counter.
func (r *Recorder) nextOrder() int { return int(r.order.Add(1)) }

// Transaction records one transaction that started at start and took d; err decides pass, fail
// or stop. Latency histograms hold passed transactions only, as LoadRunner reports them.
func (s *Shard) Transaction(name string, start time.Time, d time.Duration, err error) {
	out := Outcome(err)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch out {
	case "pass":
		s.secPass++
		Record(s.sec, d)
		h := s.secTx[name]
		if h == nil {
			h = NewSeriesHistogram()
			s.secTx[name] = h
		}
		Record(h, d)
	case "fail":
		s.secErrors++
	}
	if s.r.live {
		s.liveTransaction(name, out, err)
	}
	if !s.r.measured(start) {
		return
	}
	t := s.tx[name]
	if t == nil {
		t = &txAgg{h: NewHistogram(), order: s.r.nextOrder()}
		s.tx[name] = t
	}
	switch out {
	case "pass":
		t.pass++
		Record(t.h, d)
	case "fail":
		t.fail++
		if t.fh == nil {
			t.fh = NewHistogram()
		}
		Record(t.fh, d)
		kind, msg := errorKind(err)
		k := errKey{name, kind}
		e := s.errs[k]
		if e == nil {
			e = &errAgg{example: msg, order: s.r.nextOrder()}
			s.errs[k] = e
		}
		e.count++
	case "stop":
		t.stop++
	}
}

// CheckKindPrefix begins the kind of every failed content check (check contains, check regex…).
const CheckKindPrefix = "check "

func (s *Shard) liveTransaction(name, out string, err error) {
	t := s.secLive[name]
	if t == nil {
		if s.secLive == nil {
			s.secLive = map[string]*TxSecond{}
		}
		t = &TxSecond{Name: name}
		s.secLive[name] = t
	}
	switch out {
	case "pass":
		t.Pass++ // its latency is in secTx, the series' per-transaction histogram
	case "fail":
		t.Fail++
		var k Kinded
		if errors.As(err, &k) && strings.HasPrefix(k.Kind(), CheckKindPrefix) {
			t.CheckFailures++
		}
	case "stop":
		t.Stop++
	}
}

func errorKind(err error) (kind, example string) {
	example = trunc(err.Error(), 300)
	var k Kinded
	if errors.As(err, &k) {
		return k.Kind(), example
	}
	return trunc(err.Error(), 100), example
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Hit records one HTTP request (a redirect followed is a hit of its own) with its status and
// response bytes. status 0 means no response (a transport error).
func (s *Shard) Hit(start time.Time, status int, bytes int64) {
	s.secHits.Add(1)
	if s.r.live {
		s.allBytes.Add(bytes)
	}
	if !s.r.measured(start) {
		return
	}
	s.hits.Add(1)
	s.bytes.Add(bytes)
	if status >= 0 && status < len(s.status) {
		s.status[status].Add(1)
		return
	}
	s.mu.Lock()
	s.otherStatus[status]++
	s.mu.Unlock()
}

// Tick closes the second that ends at now: it merges every shard's per-second data into one
// series point. phase names the phase; users is the number of running users or in-flight
// iterations.
func (r *Recorder) Tick(now time.Time, phase string, users int) report.SeriesPoint {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	r.secHist.Reset()
	for _, h := range r.secTxHist {
		h.Reset()
	}
	var pass, errs, hits int64
	for _, t := range r.txOrder {
		t.Pass, t.Fail, t.Stop, t.CheckFailures = 0, 0, 0, 0
	}
	for _, s := range r.shards {
		s.mu.Lock()
		r.secHist.Merge(s.sec)
		s.sec.Reset()
		for name, h := range s.secTx {
			if h.TotalCount() == 0 {
				continue
			}
			all := r.secTxHist[name]
			if all == nil {
				all = NewSeriesHistogram()
				r.secTxHist[name] = all
			}
			all.Merge(h)
			h.Reset()
		}
		pass += s.secPass
		errs += s.secErrors
		s.secPass, s.secErrors = 0, 0
		for name, st := range s.secLive {
			r.addTxSecond(name, st)
		}
		s.mu.Unlock()
		hits += s.secHits.Swap(0)
	}
	p := Point(int(now.Sub(r.runStart).Round(time.Second)/time.Second), phase, pass, errs, hits, users, r.secHist)
	for name, h := range r.secTxHist {
		if n := h.TotalCount(); n > 0 {
			p.Transactions = append(p.Transactions, report.TxSecond{Name: name, TPS: float64(n),
				P50Ms: usToMs(h.ValueAtQuantile(50)), P90Ms: usToMs(h.ValueAtQuantile(90)), P99Ms: usToMs(h.ValueAtQuantile(99))})
		}
	}
	sort.Slice(p.Transactions, func(i, j int) bool { return p.Transactions[i].Name < p.Transactions[j].Name })
	for _, t := range r.txOrder {
		t.Hist = r.empty
		if h := r.secTxHist[t.Name]; h != nil {
			t.Hist = h // this second's, reset at the next Tick
		}
	}
	r.series = append(r.series, p)
	return p
}

// addTxSecond moves one shard's second of a transaction into the recorder's, leaving the
// shard's at zero. Called by Tick under the shard's lock.
func (r *Recorder) addTxSecond(name string, st *TxSecond) {
	t := r.txSec[name]
	if t == nil {
		t = &TxSecond{Name: name}
		r.txSec[name] = t
		r.txOrder = append(r.txOrder, t)
	}
	t.Pass += st.Pass
	t.Fail += st.Fail
	t.Stop += st.Stop
	t.CheckFailures += st.CheckFailures
	st.Pass, st.Fail, st.Stop, st.CheckFailures = 0, 0, 0, 0
}

// Point is one second of the series: pass transactions passed, errs failed, hits requests, users
// running (or in flight), and h the latency histogram of the passed ones, read for the
// percentiles. A run's recorder and a fleet's controller (which merges its agents' seconds) make
// their points here, so both read the same percentiles the same way.
func Point(second int, phase string, pass, errs, hits int64, users int, h *hdr.Histogram) report.SeriesPoint {
	p := report.SeriesPoint{Second: second, Phase: phase, TPS: float64(pass), Errors: errs, Hits: hits, Users: users}
	if pass > 0 && h.TotalCount() > 0 {
		p.P50Ms = usToMs(h.ValueAtQuantile(50))
		p.P90Ms = usToMs(h.ValueAtQuantile(90))
		p.P99Ms = usToMs(h.ValueAtQuantile(99))
	}
	return p
}

func statusKey(code int) string {
	if code == 0 {
		return "no response"
	}
	return strconv.Itoa(code)
}

// SecondHistogram is the latency histogram of the second the last Tick closed (2 significant
// figures): valid until the next Tick, and only to the goroutine that calls Tick.
func (r *Recorder) SecondHistogram() *hdr.Histogram { return r.secHist }

func usToMs(us int64) float64 { return float64(us) / 1000 }

// MergeTransaction adds transaction t's encoded histogram (report.Transaction.Histogram) into
// h. Results merged after they travelled (an agent's, a sweep point's) must carry every sample
// they claim: a histogram that does not decode, holds samples outside h's range, or holds fewer
// samples than t passed is an error, never silently dropped, since merging without it would
// print percentiles of part of the run as if of all of it.
func MergeTransaction(h *hdr.Histogram, t report.Transaction) error {
	if t.Histogram == "" {
		if t.Pass > 0 {
			return fmt.Errorf("transaction %q: %d passed but its results carry no histogram", t.Name, t.Pass)
		}
		return nil
	}
	d, err := hdr.Decode([]byte(t.Histogram))
	if err != nil {
		return fmt.Errorf("transaction %q: histogram: %w", t.Name, err)
	}
	if d.TotalCount() < t.Pass {
		return fmt.Errorf("transaction %q: %d passed but its histogram holds %d samples", t.Name, t.Pass, d.TotalCount())
	}
	if dropped := h.Merge(d); dropped > 0 {
		return fmt.Errorf("transaction %q: %d samples outside the histogram's range", t.Name, dropped)
	}
	return nil
}

// Merged returns, per transaction name, the exact merge of every shard's histogram and counts.
func (r *Recorder) Merged() map[string]*Merged {
	out := map[string]*Merged{}
	for _, s := range r.shards {
		s.mu.Lock()
		for name, t := range s.tx {
			m := out[name]
			if m == nil {
				m = &Merged{Name: name, Hist: NewHistogram(), order: t.order}
				out[name] = m
			}
			m.Hist.Merge(t.h)
			if t.fh != nil {
				if m.FailHist == nil {
					m.FailHist = NewHistogram()
				}
				m.FailHist.Merge(t.fh)
			}
			m.Pass += t.pass
			m.Fail += t.fail
			m.Stop += t.stop
			if t.order < m.order {
				m.order = t.order
			}
		}
		s.mu.Unlock()
	}
	return out
}

// Merged is one transaction's merged measurements.
type Merged struct {
	Name             string
	Hist             *hdr.Histogram
	FailHist         *hdr.Histogram // nil when none failed
	Pass, Fail, Stop int64
	order            int
}

// Summarize turns a histogram and counts into a report row; steadySeconds gives TPS.
func Summarize(name string, h *hdr.Histogram, pass, fail, stop int64, steadySeconds float64) report.Transaction {
	t := report.Transaction{Name: name, Count: pass + fail, Pass: pass, Errors: fail, Stop: stop}
	if steadySeconds > 0 {
		t.TPS = float64(pass) / steadySeconds
	}
	if h.TotalCount() > 0 {
		t.MinMs = usToMs(h.Min())
		t.MeanMs = h.Mean() / 1000
		t.StdMs = h.StdDev() / 1000
		t.P50Ms = usToMs(h.ValueAtQuantile(50))
		t.P90Ms = usToMs(h.ValueAtQuantile(90))
		t.P95Ms = usToMs(h.ValueAtQuantile(95))
		t.P99Ms = usToMs(h.ValueAtQuantile(99))
		t.P999Ms = usToMs(h.ValueAtQuantile(99.9))
		t.MaxMs = usToMs(h.Max())
		if enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase); err == nil {
			t.Histogram = string(enc)
		}
	}
	return t
}

// FailedLatency summarizes failed transactions' latencies (nil when none failed): how long a
// failure took — a timeout, a fast 500 — is kept apart from the passed latencies.
func FailedLatency(h *hdr.Histogram) *report.Latency {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	return &report.Latency{Count: h.TotalCount(), P50Ms: usToMs(h.ValueAtQuantile(50)), P90Ms: usToMs(h.ValueAtQuantile(90)),
		P99Ms: usToMs(h.ValueAtQuantile(99)), MaxMs: usToMs(h.Max())}
}

// Fill writes everything recorded into res: transactions in first-seen order, the total, hits,
// bytes, status codes, errors and the series. steadySeconds is the measured window's length.
func (r *Recorder) Fill(res *report.Results, steadySeconds float64) {
	merged := r.Merged()
	names := make([]*Merged, 0, len(merged))
	for _, m := range merged {
		names = append(names, m)
	}
	sort.Slice(names, func(i, j int) bool { return names[i].order < names[j].order })
	total := NewHistogram()
	var tp, tf, ts int64
	res.Transactions = res.Transactions[:0]
	for _, m := range names {
		t := Summarize(m.Name, m.Hist, m.Pass, m.Fail, m.Stop, steadySeconds)
		t.Failed = FailedLatency(m.FailHist)
		res.Transactions = append(res.Transactions, t)
		total.Merge(m.Hist)
		tp += m.Pass
		tf += m.Fail
		ts += m.Stop
	}
	res.Total = Summarize("total", total, tp, tf, ts, steadySeconds)
	res.Total.Histogram = ""
	res.SteadySeconds = steadySeconds

	type eg struct {
		report.ErrorGroup
		order int
	}
	var groups []eg
	byKey := map[errKey]int{} // index into groups
	if res.StatusCodes == nil {
		res.StatusCodes = map[string]int64{}
	}
	for _, s := range r.shards {
		s.mu.Lock()
		res.Hits += s.hits.Load()
		res.Bytes += s.bytes.Load()
		for code := range s.status {
			if n := s.status[code].Load(); n > 0 {
				res.StatusCodes[statusKey(code)] += n
			}
		}
		for code, n := range s.otherStatus {
			res.StatusCodes[statusKey(code)] += n
		}
		for k, e := range s.errs {
			i, ok := byKey[k]
			if !ok {
				groups = append(groups, eg{ErrorGroup: report.ErrorGroup{Kind: k.kind, Transaction: k.tx, Example: e.example}, order: e.order})
				i = len(groups) - 1
				byKey[k] = i
			}
			g := &groups[i]
			g.Count += e.count
			if e.order < g.order {
				g.order, g.Example = e.order, e.example
			}
		}
		s.mu.Unlock()
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].order < groups[j].order })
	res.Errors = res.Errors[:0]
	for _, g := range groups {
		res.Errors = append(res.Errors, g.ErrorGroup)
	}
	if steadySeconds > 0 {
		res.HitsPerSec = float64(res.Hits) / steadySeconds
		res.BytesPerSec = float64(res.Bytes) / steadySeconds
	}
	r.tickMu.Lock()
	res.Series = append(res.Series[:0], r.series...)
	r.tickMu.Unlock()
}
