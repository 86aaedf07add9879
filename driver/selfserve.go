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

// sutByPort makes the processes serving a loopback target's port the system under test when
// the drive names none (cfg.Resources empty: no --sut-metrics, no server the job started): a
// user who drives a server on this machine expects its CPU to be the measurement's own, not
// "other processes", and its CPU and memory in the results' sut section. Only a process that
// accepts the driver's own connection counts, and only the driver's user's (sut.FindServer): a
// neighbour listening on the same port served nothing, and is said, not counted. So are the
// processes at the other end of its connections on this machine (sut.Follow: a split
// deployment's services host, the database's process for each of its connections, the order
// processors consuming from its broker). Each is said on the progress line's writer. It
// returns why none was found when that matters — the target is on this machine, so its server,
// if it runs, counts as other processes' — and "" otherwise (found, named, served by this
// process, or a target elsewhere). It runs after the preflight, whose first request makes a
// server open its connections to its services.
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
	srv, err := sut.FindServer(target, false)
	if errors.Is(err, sut.ErrNotLocal) {
		return nil, ""
	}
	say := func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, format+"\n", a...)
		}
	}
	for _, l := range srv.Idle {
		say("not the system under test: %s (pid %d), listening on the port of %s but serving none of this driver's connections; its CPU is other processes'", l.Name, l.PID, l.Addr)
	}
	for _, l := range srv.Foreign {
		say("not the system under test: %s (pid %d), serving %s but another user's (name it with --sut-metrics); its CPU is other processes'", l.Name, l.PID, l.Addr)
	}
	if err != nil {
		return nil, err.Error()
	}
	ls := slices.DeleteFunc(srv.Serving, func(l sut.Listener) bool { return l.PID == os.Getpid() }) // the driver's own already
	if len(ls) == 0 && len(srv.Foreign) > 0 {
		return nil, fmt.Sprintf("the server on the target's port is another user's (%s)", srv.Foreign[0])
	}
	var roots []int
	for _, l := range ls {
		roots = append(roots, l.PID)
	}
	found := append(ls, sut.Follow("", os.Getpid(), roots)...)
	for _, l := range found {
		resources = append(resources, l.Source(""))
	}
	for _, l := range sut.FoundLines(found) {
		say("system under test: %s", l)
	}
	return resources, ""
}
