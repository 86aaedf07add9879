package procfs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/tradebench/tradebench/internal/logsafe"
)

// ClockTicks is the unit of the CPU times of /proc/PID/stat and /proc/stat (USER_HZ). Linux
// reports them in 1/100 s on every architecture it runs Go on, whatever the kernel's own tick
// rate.
const ClockTicks = 100

// Stat is the part of a /proc/PID/stat line tradebench reads: the command name, the parent,
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

// CPUSeconds is the process's own CPU time, user and system.
func (s Stat) CPUSeconds() float64 { return float64(s.UTime+s.STime) / ClockTicks }

// pfKThread is the kernel's PF_KTHREAD flag (include/linux/sched.h): the task is a kernel thread.
const pfKThread = 0x00200000

// KernelThread reports whether the process is one of the kernel's own threads (kworker,
// ksoftirqd, kswapd…): flagged PF_KTHREAD, the kernel's own answer. Not "pid 2 or its
// children": in a PID namespace (unshare -fp) a user's process is pid 2, and a child of it is
// no kernel thread.
func (s Stat) KernelThread() bool {
	return s.Flags&pfKThread != 0
}

// Stat reads a process's stat line.
func (fs FS) Stat(pid int) (Stat, error) {
	var st Stat
	path := fs.pidPath(pid, "stat")
	err := read(path, func(b []byte) error {
		var err error
		st, err = ParseStat(b)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
	return st, err
}

// Stats reads every process's stat line: a process gone between listing and reading, or
// whose line does not parse, is left out. Nil when the processes cannot be listed.
func (fs FS) Stats() map[int]Stat {
	pids, err := fs.PIDs()
	if err != nil {
		return nil
	}
	out := make(map[int]Stat, len(pids))
	for _, pid := range pids {
		if st, err := fs.Stat(pid); err == nil {
			out[pid] = st
		}
	}
	return out
}

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
	var fields [20][]byte
	f := fieldsInto(fields[:0], b[i+1:])
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

// fieldsInto appends b's space-separated fields to f, up to f's capacity (bytes.Fields without
// its allocation: the fields past the ones read are not needed).
func fieldsInto(f [][]byte, b []byte) [][]byte {
	for len(f) < cap(f) {
		b = bytes.TrimLeft(b, " \t\n")
		if len(b) == 0 {
			break
		}
		end := bytes.IndexAny(b, " \t\n")
		if end < 0 {
			end = len(b)
		}
		f = append(f, b[:end])
		b = b[end:]
	}
	return f
}

// CPU is the machine's CPU time from /proc/stat, in clock ticks over all CPUs since boot.
type CPU struct {
	Busy  uint64 // everything but idle and iowait (guest time is already inside user)
	Steal uint64 // taken by the hypervisor for other guests
	IRQ   uint64 // interrupts and softirqs, which no process is charged with
	Cores int    // the cpuN lines: online CPUs
}

// CPU reads /proc/stat's aggregate line and counts the CPUs.
func (fs FS) CPU() (CPU, error) {
	var c CPU
	err := read(fs.path("stat"), func(b []byte) error {
		var err error
		c, err = ParseCPU(b)
		return err
	})
	return c, err
}

// ParseCPU reads /proc/stat: its aggregate "cpu" line and the number of cpuN lines.
// os.ErrNotExist when either is missing.
func ParseCPU(b []byte) (CPU, error) {
	var c CPU
	seen := false
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, []byte("cpu")) {
			continue
		}
		var fields [9][]byte
		f := fieldsInto(fields[:0], line)
		if len(f[0]) > 3 {
			c.Cores++
			continue
		}
		// cpu user nice system idle iowait irq softirq steal guest guest_nice
		var v [8]uint64
		for i := 0; i < 8 && i+1 < len(f); i++ {
			var err error
			if v[i], err = strconv.ParseUint(string(f[i+1]), 10, 64); err != nil {
				return CPU{}, err
			}
		}
		c.Busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
		c.Steal = v[7]
		c.IRQ = v[5] + v[6]
		seen = true
	}
	if !seen || c.Cores == 0 {
		return CPU{}, os.ErrNotExist
	}
	return c, nil
}

// LoadAvg is /proc/loadavg's three load averages (1, 5 and 15 minutes); nil when unreadable.
func (fs FS) LoadAvg() []float64 {
	var out []float64
	_ = read(fs.path("loadavg"), func(b []byte) error {
		var fields [3][]byte
		for _, f := range fieldsInto(fields[:0], b) {
			v, err := strconv.ParseFloat(string(f), 64)
			if err != nil {
				out = nil
				return nil
			}
			out = append(out, v)
		}
		return nil
	})
	return out
}
