package sut

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/tradebench/tradebench/internal/procfs"
)

// Followed is, as one resource source, the processes on this machine that Follow finds from a
// server running in the driver's process (the embedded main job's): its database's backends,
// its broker's clients. Its Name says who they are and how many served at once at the most
// ("postgres ×16": the pool's size, as the machine's summary line counts them — not the 116
// that took turns as a long search's pool replaced its connections); its CPU is theirs since
// each was first seen (a backend the pool opens within the run counts from then; one that ends
// keeps what it used); its memory their resident memory now. The system under test's CPU then
// includes its database's, as it does for a server found by its port, and a capacity on
// PostgreSQL says how much of the machine the database took.
type Followed struct {
	Root string // the proc file system ("" = /proc)
	Self int    // the driver's process, which serves too (0 = this process)

	mu    sync.Mutex
	first map[procKey]float64 // CPU seconds when each was first seen
	last  map[procKey]float64
	most  map[string]int // the most of each name found at one following
	found []Listener     // the last following's
	reads int
}

// procKey is a process: its pid and start time (a pid may be reused).
type procKey struct {
	pid   int
	start uint64
}

// FollowSelf is Followed from this process, the server running in it.
func FollowSelf() *Followed { return &Followed{Self: os.Getpid()} }

// Name is the processes found over the run, grouped by name, each with the most found at once:
// "postgres ×16", "nats, postgres ×3" (a pool that shrinks at the end still says how many
// served it at once; one whose connections were replaced says its size, not the turns).
func (f *Followed) Name() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.name()
}

func (f *Followed) name() string {
	if len(f.most) == 0 {
		return "(processes serving the server's connections: none found)"
	}
	names := make([]string, 0, len(f.most))
	for name, c := range f.most {
		if c > 1 {
			name = fmt.Sprintf("%s ×%d", name, c)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func (f *Followed) PID() int       { return 0 }
func (f *Followed) Origin() string { return "proc" }

// listener is how the group was found, for the results (Found): at the address the first of
// them serves, reached from the driver's process.
func (f *Followed) listener() (Listener, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.found) == 0 {
		return Listener{}, false
	}
	l := f.found[0]
	return Listener{Name: f.name(), Addr: l.Addr, From: l.From, Role: l.Role}, true
}

// refollow is how many reads apart the server's connections are followed again: following
// reads every process's descriptors (the server's thousands among them), which the driver
// sharing its process pays for; the processes found are read at every read.
const refollow = 5

// Read reads each process found, following the server's connections again every refollow
// reads (the first included): a backend the pool opens within the run is counted from then.
func (f *Followed) Read(context.Context) (Sample, error) {
	fs, self := procfs.FS(f.Root), f.Self
	if self == 0 {
		self = os.Getpid()
	}
	f.mu.Lock()
	n := f.reads
	f.reads++
	found := slices.Clone(f.found)
	f.mu.Unlock()
	if n%refollow == 0 {
		found = Follow(f.Root, self, []int{self})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first == nil {
		f.first, f.last, f.most = map[procKey]float64{}, map[procKey]float64{}, map[string]int{}
	}
	var s Sample
	atOnce := map[string]int{}
	kept := found[:0]
	for _, l := range found {
		st, err := fs.Stat(l.PID)
		if err != nil {
			continue // ended since
		}
		k := procKey{l.PID, st.Start}
		cpu := st.CPUSeconds()
		if _, ok := f.first[k]; !ok {
			f.first[k] = cpu
		}
		f.last[k] = cpu
		if status, err := fs.Status(l.PID); err == nil {
			s.RSSBytes += status.RSS
		}
		atOnce[l.Name]++
		kept = append(kept, l)
	}
	for name, c := range atOnce {
		f.most[name] = max(f.most[name], c)
	}
	f.found = kept
	for k, c := range f.last {
		s.CPUSeconds += c - f.first[k]
	}
	return s, nil
}

// empty reports whether no process was ever found: a server database elsewhere, nothing of it to
// count here (the results leave the source out).
func (f *Followed) empty() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.first) == 0
}
