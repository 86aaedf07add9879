package sut

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/tradebench/tradebench/internal/logsafe"
)

// clockTicks is the unit of /proc/PID/stat's CPU times (USER_HZ). Linux reports them in 1/100 s
// on every architecture it runs Go on, whatever the kernel's own tick rate.
const clockTicks = 100

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

// parseStatCPU returns utime + stime in seconds.
func parseStatCPU(b []byte) (float64, error) {
	st, err := ParseStat(b)
	if err != nil {
		return 0, err
	}
	return float64(st.UTime+st.STime) / clockTicks, nil
}

// Stat is the part of a /proc/PID/stat line the instrument reads: the command name, the parent,
// the kernel's flags and the CPU times in clock ticks (ClockTicks a second) — the process's own,
// and its finished children's (added when it waited for them).
type Stat struct {
	Name                         string
	PPID                         int
	Flags                        uint64
	UTime, STime, CUTime, CSTime uint64
	// Start is when the process started, in clock ticks after boot (field 22; 0 if not read):
	// with the pid, what tells one process from a later one given the same pid. The name does
	// not: a kernel worker renames itself for each work queue it serves
	// ("kworker/1:1H-kblockd", "kworker/1:1H-events").
	Start uint64
}

// pfKThread is the kernel's PF_KTHREAD flag (include/linux/sched.h): the task is a kernel thread.
const pfKThread = 0x00200000

// KernelThread reports whether the process is one of the kernel's own threads (kworker,
// ksoftirqd, kswapd…): flagged PF_KTHREAD, the kernel's own answer. Not "pid 2 or its
// children": in a PID namespace (unshare -fp) a user's process is pid 2, and a child of it is
// no kernel thread.
func (s Stat) KernelThread() bool {
	return s.Flags&pfKThread != 0
}

// ClockTicks is the unit of Stat's CPU times (USER_HZ): /proc/stat's too.
const ClockTicks = clockTicks

// ParseStat reads a /proc/PID/stat line. The command name (field 2) is in parentheses and may
// itself hold spaces and parentheses, so fields are counted from the last ')'. Any local user
// sets its process's name (prctl PR_SET_NAME), so the name is escaped for a terminal
// (logsafe.Terminal) here, before anything prints or stores it.
func ParseStat(b []byte) (Stat, error) {
	i := bytes.LastIndexByte(b, ')')
	j := bytes.IndexByte(b, '(')
	if i < 0 || j < 0 || j > i {
		return Stat{}, fmt.Errorf("no command name")
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state); utime is field 14, stime 15, cutime 16, cstime 17
	if len(f) < 13 {
		return Stat{}, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	st := Stat{Name: logsafe.Terminal(string(b[j+1 : i]))}
	// f[1] is the parent's pid (field 4), f[6] the flags (field 9); a line that does not carry
	// them as numbers keeps zeros (neither is needed to read the CPU times)
	if ppid, err := strconv.Atoi(string(f[1])); err == nil {
		st.PPID = ppid
	}
	if flags, err := strconv.ParseUint(string(f[6]), 10, 64); err == nil {
		st.Flags = flags
	}
	var errs [4]error
	st.UTime, errs[0] = strconv.ParseUint(string(f[11]), 10, 64)
	st.STime, errs[1] = strconv.ParseUint(string(f[12]), 10, 64)
	if errs[0] != nil || errs[1] != nil {
		return Stat{}, fmt.Errorf("utime %q, stime %q: not numbers", f[11], f[12])
	}
	if len(f) >= 15 {
		// children's times are signed in the kernel's format; a negative one is nonsense: 0
		cu, err1 := strconv.ParseInt(string(f[13]), 10, 64)
		cs, err2 := strconv.ParseInt(string(f[14]), 10, 64)
		if err1 == nil && err2 == nil {
			st.CUTime, st.CSTime = uint64(max(cu, 0)), uint64(max(cs, 0))
		}
	}
	if len(f) >= 20 {
		st.Start, _ = strconv.ParseUint(string(f[19]), 10, 64)
	}
	return st, nil
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

// UID is the real user id of a process on this machine (from /proc/PID/status's Uid line), and
// whether it could be read.
func UID(root string, pid int) (int, bool) {
	if root == "" {
		root = "/proc"
	}
	b, err := os.ReadFile(root + "/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	i := bytes.Index(b, []byte("\nUid:"))
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+len("\nUid:"):])
	if len(f) == 0 {
		return 0, false
	}
	uid, err := strconv.Atoi(string(f[0]))
	return uid, err == nil
}
