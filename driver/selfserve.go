package driver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/report"
)

// Judge gives res its verdict under rules (res.Validity) and returns the verdict as an error
// (*report.InvalidError when invalid). target is the URL the load went to: a target served by
// this very process shares the driver's CPU, which the driver_cpu rule then cannot judge; ""
// says the system under test runs in this process (an in-process workload such as XML Mark).
// Every job judges its results through it, so every result carries a verdict by the same rules.
func Judge(res *report.Results, rules report.Rules, target string) error {
	if d := res.Driver; d != nil && !d.SharedWithSUT {
		d.SharedWithSUT = target == "" || servedHere(target)
	}
	return res.Judge(rules)
}

// servedHere reports whether the target's port is listened on by this very process (a server
// started in-process beside the driver: the embedded run, a test's httptest server). Then the
// driver's CPU includes the server's and the driver_cpu run rule cannot judge it. It reads
// Linux's /proc (sut.FindListeners); anywhere else, or on any doubt, it says false.
func servedHere(target string) bool {
	ls, _ := sut.FindListeners("", target)
	return slices.ContainsFunc(ls, func(l sut.Listener) bool { return l.PID == os.Getpid() })
}

// sutByPort makes the processes listening on a loopback target's port the system under test
// when the drive names none (cfg.Resources empty: no --sut-metrics, no server the job started):
// a user who drives a server on this machine expects its CPU to be the measurement's own, not
// "other processes", and its CPU and memory in the results' sut section. So are the processes
// serving the connections those opened on this machine (sut.FindBackends: a split deployment's
// services host, the database's process for each of its connections). Each is said on the
// progress line's writer. It returns why none was found when that matters — the target is on
// this machine, so its server, if it runs, counts as other processes' — and "" otherwise
// (found, named, served by this process, or a target elsewhere). It runs after the preflight,
// whose first request makes a server open its connections to its services.
func sutByPort(cfg *Config, target string) (notFound string) {
	cfg.Resources, notFound = findSUT(cfg.Resources, target, cfg.Progress)
	return notFound
}

// findSUT is sutByPort on resources: those given, or the ones found for target (each said on
// progress, if not nil), and why none was found when that matters. An agent runs it for its
// own machine (Plan.Run).
func findSUT(resources []sut.Source, target string, progress io.Writer) ([]sut.Source, string) {
	if len(resources) > 0 || target == "" {
		return resources, ""
	}
	ls, err := sut.FindListeners("", target)
	if errors.Is(err, sut.ErrNotLocal) {
		return nil, ""
	}
	if err != nil {
		return nil, err.Error()
	}
	ls = slices.DeleteFunc(ls, func(l sut.Listener) bool { return l.PID == os.Getpid() }) // the driver's own already
	for _, l := range append(ls, sut.FindBackends("", ls, os.Getpid())...) {
		resources = append(resources, l.Source(""))
		if progress != nil {
			fmt.Fprintf(progress, "system under test: %s, its CPU counted as the measurement's own\n", l)
		}
	}
	return resources, ""
}
