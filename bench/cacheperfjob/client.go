package cacheperfjob

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime/metrics"
	"slices"
	"strconv"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
)

func itemURL(base string, id int) string {
	return base + "/cacheperf/item?id=" + strconv.Itoa(id) + "&displayImage=false"
}

// getPage GETs url and reads the body into buf (growing it); it returns status and body.
func getPage(ctx context.Context, c *http.Client, url string, buf []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b := bytes.NewBuffer(buf[:0])
	_, err = io.Copy(b, resp.Body)
	return resp.StatusCode, b.Bytes(), err
}

// request is one transaction: a GET whose page must be 200 and contain marker.
func (u *user) request(ctx context.Context, it *load.Iteration, name, url, marker string) error {
	start := it.StartTx()
	status, body, err := getPage(ctx, u.w.client, url, u.buf)
	if cap(body) > cap(u.buf) {
		u.buf = body[:0]
	}
	cut := err != nil && ctx.Err() != nil
	if !cut {
		it.Hit(start, status, int64(len(body)))
	}
	switch {
	case cut:
		err = context.Canceled // the run ended mid-request: a stop, not a failure, and no hit
	case err != nil:
		err = recorder.Failf("transport", "%v", err)
	case status != http.StatusOK:
		err = recorder.Failf("http "+strconv.Itoa(status), "GET %s: %.200s", url, body)
	case !bytes.Contains(body, []byte(marker)):
		err = recorder.Failf("content", "GET %s: page lacks %q", url, marker)
	}
	it.Done(name, start, err)
	return nil
}

// sampler records the largest RSS, and the most memory the Go runtime held from the OS (mapped
// minus released), seen every period.
type sampler struct {
	peak, peakGo int64
	done         chan struct{}
	stopped      chan struct{}
}

var goMemSamples = []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}

func goMemory() int64 {
	s := slices.Clone(goMemSamples)
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

func startSampler(every time.Duration) *sampler {
	s := &sampler{done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			rss, _ := readRSS()
			s.peak = max(s.peak, rss)
			s.peakGo = max(s.peakGo, goMemory())
			select {
			case <-t.C:
			case <-s.done:
				return
			}
		}
	}()
	return s
}

// stop ends sampling and returns the peak RSS. Safe to call more than once.
func (s *sampler) stop() int64 {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	<-s.stopped
	return s.peak
}
