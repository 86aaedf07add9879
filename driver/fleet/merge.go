package fleet

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/report"
)

// Merge adds the agents' results into one: counts, hits, bytes, status codes and error groups
// are summed, and every transaction's latency histogram is decoded and added bucket by bucket,
// so the merged percentiles are those of all the samples (never an average of percentiles).
// steadySeconds is the measured window's configured length, the denominator of every rate: one
// agent stopped early contributes less to it, and only when every agent was cut short (an
// interrupted run) is the window the longest any of them measured. Transactions and error groups keep the order in which the agents,
// in turn, first saw them. The series is not merged here: the controller builds it from the
// agents' per-second reports.
func Merge(parts []*report.Results, steadySeconds float64) (*report.Results, error) {
	res := report.New("")
	var longest float64 // the longest measured window an agent ran
	type tx struct {
		h                *hdr.Histogram
		pass, fail, stop int64
	}
	var names []string
	txs := map[string]*tx{}
	type errKey struct{ tx, kind string }
	groups := map[errKey]int{}
	for i, p := range parts {
		if i == 0 || p.StartedAt.Before(res.StartedAt) {
			res.StartedAt = p.StartedAt
		}
		if p.EndedAt.After(res.EndedAt) {
			res.EndedAt = p.EndedAt
		}
		longest = max(longest, p.SteadySeconds)
		for _, t := range p.Transactions {
			m := txs[t.Name]
			if m == nil {
				m = &tx{h: recorder.NewHistogram()}
				txs[t.Name] = m
				names = append(names, t.Name)
			}
			if err := recorder.MergeTransaction(m.h, t); err != nil {
				return nil, fmt.Errorf("agent results: %w", err)
			}
			m.pass += t.Pass
			m.fail += t.Errors
			m.stop += t.Stop
		}
		res.Hits += p.Hits
		res.Bytes += p.Bytes
		for code, n := range p.StatusCodes {
			res.StatusCodes[code] += n
		}
		for _, e := range p.Errors {
			k := errKey{e.Transaction, e.Kind}
			if j, ok := groups[k]; ok {
				res.Errors[j].Count += e.Count
				continue
			}
			groups[k] = len(res.Errors)
			res.Errors = append(res.Errors, e)
		}
		res.Dropped += p.Dropped
		res.Late += p.Late
		res.Arrivals += p.Arrivals
		res.Notes = append(res.Notes, p.Notes...)
	}
	if longest > 0 && longest < steadySeconds {
		steadySeconds = longest // every agent was cut short: the controller was interrupted
	}
	total := recorder.NewHistogram()
	var tp, tf, ts int64
	res.Transactions = []report.Transaction{}
	for _, name := range names {
		m := txs[name]
		res.Transactions = append(res.Transactions, recorder.Summarize(name, m.h, m.pass, m.fail, m.stop, steadySeconds))
		total.Merge(m.h)
		tp, tf, ts = tp+m.pass, tf+m.fail, ts+m.stop
	}
	res.Total = recorder.Summarize("total", total, tp, tf, ts, steadySeconds)
	res.Total.Histogram = ""
	res.SteadySeconds = steadySeconds
	if steadySeconds > 0 {
		res.HitsPerSec = float64(res.Hits) / steadySeconds
		res.BytesPerSec = float64(res.Bytes) / steadySeconds
	}
	return res, nil
}
