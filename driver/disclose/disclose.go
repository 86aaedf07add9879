// Package disclose captures the full disclosure of a run (report.Disclosure) from the machine
// it runs on: hardware, operating system and software versions, and the command line, so every
// results file says what it was measured with without anyone typing it in. The commands that
// run load add what only they know (the scenario, the database, the server's configuration).
//
// It reads /proc and /etc/os-release, as found on Linux; elsewhere the fields it cannot read
// are left empty rather than guessed.
package disclose

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/procfs"
	"github.com/tradebench/tradebench/report"
)

// New returns the disclosure of this machine and process: hardware, OS, software and the
// command line (os.Args). Workload, run rules and the rest are the caller's to fill.
func New() *report.Disclosure {
	return &report.Disclosure{
		Hardware: Hardware(),
		OS:       OS(),
		Software: Software(),
		Command:  Command(dsn.RedactArgs(os.Args)), // the command as typed, its URLs' credentials hidden
	}
}

// Command is a command line as the user would type it again: the tradebench binary named
// "tradebench", not the path it ran from — under `go run` that is a deleted temporary build
// (/tmp/go-build…/exe/tradebench) nobody can run.
func Command(args []string) []string {
	out := append([]string(nil), args...)
	if len(out) > 0 && filepath.Base(out[0]) == "tradebench" {
		out[0] = "tradebench"
	}
	return out
}

// Fill gives res, when it has no disclosure yet, the one a run's results imply: this machine
// and command (New), the offered load and phases its settings record (load.Config.Describe
// writes them), and the measured window. The command that ran the load adds the rest (the
// scenario, the server's configuration). It is the reporting step after a run, not part of the
// load loop, so every job's results carry the same disclosure however they were driven.
func Fill(res *report.Results) {
	if res == nil || res.Disclosure != nil {
		return
	}
	d := New()
	ph := res.Phases
	d.Workload = report.WorkloadInfo{Phases: ph}
	if res.Settings.Model == report.ModelOpen {
		d.Workload.Rate = res.Settings.Rate
	} else {
		d.Workload.Users = res.Settings.Users
	}
	d.RunRules = report.RunRules{
		MeasuredWindow: MeasuredWindow(ph.RampUpSeconds, ph.SteadySeconds, ph.RampDownSeconds),
		ErrorsAre:      "a transaction that failed: a transport error, a timeout, or a failed check of the workload's response",
	}
	res.Disclosure = d
}

// Hardware reads the CPU model (/proc/cpuinfo), the logical CPUs Go sees and the memory
// (/proc/meminfo MemTotal).
func Hardware() report.Hardware {
	return report.Hardware{Cores: runtime.NumCPU(), CPUModel: procfs.Default.CPUModel(), MemoryBytes: procfs.Default.MemTotal()}
}

// OS reads the kernel (/proc/sys/kernel/ostype and osrelease, what uname -sr prints) and the
// distribution (/etc/os-release PRETTY_NAME).
func OS() report.OSInfo {
	var o report.OSInfo
	if k, ok := procfs.Default.Kernel(); ok {
		o.Kernel = k
	} else {
		o.Kernel = runtime.GOOS
	}
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		if b, err := os.ReadFile(p); err == nil {
			o.Distribution = osRelease(b)
			break
		}
	}
	return o
}

// osRelease is PRETTY_NAME, or NAME and VERSION, of an os-release file.
func osRelease(b []byte) string {
	vals := map[string]string{}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok {
			continue
		}
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else {
			v = strings.Trim(v, `'"`)
		}
		vals[k] = v
	}
	if v := vals["PRETTY_NAME"]; v != "" {
		return v
	}
	return strings.TrimSpace(vals["NAME"] + " " + vals["VERSION"])
}

// Software is tradebench's version and the commit it was built from (from the build
// information Go embeds; "-dirty" when the tree had uncommitted changes; empty for a build
// outside a repository, e.g. go test), and the Go version.
func Software() report.Software {
	s := report.Software{Tradebench: report.Version, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev string
		var dirty bool
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				rev = kv.Value
			case "vcs.modified":
				dirty = kv.Value == "true"
			}
		}
		if rev != "" && dirty {
			rev += "-dirty"
		}
		s.Commit = rev
	}
	return s
}

// SHA256 is the hex SHA-256 of content: a scenario's hash, so two results can tell whether
// they ran the same file.
func SHA256(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

// MeasuredWindow describes the measured window: only the steady state counts.
func MeasuredWindow(rampUp, steady, rampDown float64) string {
	return fmt.Sprintf("steady state only: %s measured; %s ramp-up and %s ramp-down not measured",
		secs(steady), secs(rampUp), secs(rampDown))
}

func secs(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) + " s" }
