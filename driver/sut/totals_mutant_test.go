package sut

import (
	"context"
	"sync"
	"testing"
	"time"
)

// scripted is a source that answers a fixed list of samples, then its last one again; done is
// closed once the list has been read.
type scripted struct {
	name    string
	mu      sync.Mutex
	samples []Sample
	reads   int
	done    chan struct{}
}

func (s *scripted) Name() string   { return s.name }
func (s *scripted) PID() int       { return 0 }
func (s *scripted) Origin() string { return "script" }
func (s *scripted) Read(context.Context) (Sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := min(s.reads, len(s.samples)-1)
	s.reads++
	if s.reads == len(s.samples) {
		close(s.done)
	}
	return s.samples[i], nil
}

// TestTotalsFromScriptedSamples: the run's CPU seconds are the last reading less the first, and
// its peak memory is the highest RSS sampled or, when the source knows it (/proc's VmHWM), the
// process's own high-water mark if that rose during the run. A /proc-like source (CPU 100 → 101
// → 102.5 s, RSS 10/12/11 MB, VmHWM 10 → 12 → 40 MB) gives 2.5 s and 40 MB; a scrape-like one
// (CPU 5 → 6 → 7 s, RSS 10/30/20 MB, no VmHWM) gives 2 s and 30 MB. (The tests of real
// processes can only check that these are above zero.)
//
// Mutants killed, in Stop and record: VmHWM ignored (`peak = max(peak, p.last.PeakRSS)`
// dropped: 12 MB); CPU the last reading instead of last − first (102.5 s); the peak of the
// sampled RSS not tracked (`p.peak = max(p.peak, s.RSSBytes)` dropped: 10 MB).
func TestTotalsFromScriptedSamples(t *testing.T) {
	const mb = 1 << 20
	proc := &scripted{name: "proc-like", done: make(chan struct{}), samples: []Sample{
		{CPUSeconds: 100, RSSBytes: 10 * mb, PeakRSS: 10 * mb},
		{CPUSeconds: 101, RSSBytes: 12 * mb, PeakRSS: 12 * mb},
		{CPUSeconds: 102.5, RSSBytes: 11 * mb, PeakRSS: 40 * mb},
	}}
	scrape := &scripted{name: "scrape-like", done: make(chan struct{}), samples: []Sample{
		{CPUSeconds: 5, RSSBytes: 10 * mb},
		{CPUSeconds: 6, RSSBytes: 30 * mb},
		{CPUSeconds: 7, RSSBytes: 20 * mb},
	}}
	m := Start(context.Background(), time.Now(), proc, scrape)
	<-proc.done // three reads each: Start's and two of the sampler's, however slow the machine
	<-scrape.done
	s, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Processes) != 2 {
		t.Fatalf("processes %+v", s.Processes)
	}
	for i, want := range []struct {
		cpu  float64
		peak int64
	}{{2.5, 40 * mb}, {2, 30 * mb}} {
		p := s.Processes[i]
		if p.CPUSeconds != want.cpu || p.PeakRSSBytes != want.peak {
			t.Errorf("%s: CPU %v s, peak %d MB; want %v s and %d MB", p.Name, p.CPUSeconds, p.PeakRSSBytes/mb, want.cpu, want.peak/mb)
		}
	}
}
