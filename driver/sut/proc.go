package sut

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
)

// clockTicks is the unit of /proc/PID/stat's CPU times (USER_HZ). Linux reports them in 1/100 s
// on every architecture it runs Go on, whatever the kernel's own tick rate.
const clockTicks = 100

// Proc reads a process on this machine from /proc.
type Proc struct {
	ProcName string
	Pid      int
	Root     string // the proc file system, "/proc" if empty (tests may point elsewhere)
}

// Self is this process, named name ("tradebench (monolith and driver in one process)").
func Self(name string) *Proc { return &Proc{ProcName: name, Pid: os.Getpid()} }

func (p *Proc) Name() string   { return p.ProcName }
func (p *Proc) PID() int       { return p.Pid }
func (p *Proc) Origin() string { return "proc" }

// Read reads utime + stime from /proc/PID/stat and VmRSS, VmHWM from /proc/PID/status.
func (p *Proc) Read(context.Context) (Sample, error) {
	root := p.Root
	if root == "" {
		root = "/proc"
	}
	dir := root + "/" + strconv.Itoa(p.Pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Sample{}, err
	}
	cpu, err := parseStatCPU(stat)
	if err != nil {
		return Sample{}, fmt.Errorf("%s/stat: %w", dir, err)
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return Sample{}, err
	}
	return Sample{CPUSeconds: cpu, RSSBytes: statusKB(status, "VmRSS:"), PeakRSS: statusKB(status, "VmHWM:")}, nil
}

// parseStatCPU returns utime + stime in seconds. The command name (field 2) is in parentheses
// and may itself hold spaces and parentheses, so fields are counted from the last ')'.
func parseStatCPU(b []byte) (float64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name")
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state); utime is field 14, stime field 15
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	ut, err1 := strconv.ParseUint(string(f[11]), 10, 64)
	st, err2 := strconv.ParseUint(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("utime %q, stime %q: not numbers", f[11], f[12])
	}
	return float64(ut+st) / clockTicks, nil
}

// statusKB returns a "Key:   N kB" line of /proc/PID/status in bytes (0 if absent: a kernel
// thread or a zombie has no memory lines).
func statusKB(b []byte, key string) int64 {
	i := bytes.Index(b, []byte("\n"+key))
	if i < 0 {
		return 0
	}
	line := b[i+1+len(key):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	f := bytes.Fields(line)
	if len(f) == 0 {
		return 0
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0
	}
	return n << 10
}
