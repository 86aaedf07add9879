package sut

import (
	"context"
	"os"

	"github.com/tradebench/tradebench/internal/procfs"
)

// Proc reads a process on this machine from /proc.
type Proc struct {
	ProcName string
	Pid      int
	Root     string // the proc file system, "/proc" if empty (tests may point elsewhere)
	// Listen is the address the process was found listening on, when it was found by its
	// port (FindListeners: a drive's loopback target) rather than started or named by the run.
	Listen string
	// From is, for a process of the system under test found by its connections (Follow), the
	// pid it was reached from; Role how it belongs to the system under test (RoleBackend…).
	From int
	Role string
}

// Self is this process, named name ("tradebench (monolith and driver in one process)").
func Self(name string) *Proc { return &Proc{ProcName: name, Pid: os.Getpid()} }

func (p *Proc) Name() string   { return p.ProcName }
func (p *Proc) PID() int       { return p.Pid }
func (p *Proc) Origin() string { return "proc" }

// Read reads utime + stime from /proc/PID/stat and VmRSS, VmHWM from /proc/PID/status.
func (p *Proc) Read(context.Context) (Sample, error) {
	fs := procfs.FS(p.Root)
	st, err := fs.Stat(p.Pid)
	if err != nil {
		return Sample{}, err
	}
	status, err := fs.Status(p.Pid)
	if err != nil {
		return Sample{}, err
	}
	return Sample{CPUSeconds: st.CPUSeconds(), RSSBytes: status.RSS, PeakRSS: status.PeakRSS}, nil
}
