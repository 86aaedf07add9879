package driver

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
// Linux's /proc (the listening sockets and this process's descriptors); anywhere else, or on any
// doubt, it says false.
func servedHere(target string) bool {
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return false
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil && u.Hostname() != "localhost" || ip != nil && !ip.IsLoopback() && !ip.IsUnspecified() {
		return false // only a loopback target can be this process
	}
	listening := map[string]bool{}
	want := fmt.Sprintf(":%04X", p)
	for _, f := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			if len(fs) >= 10 && fs[3] == "0A" && strings.HasSuffix(fs[1], want) {
				listening["socket:["+fs[9]+"]"] = true
			}
		}
		fh.Close()
	}
	if len(listening) == 0 {
		return false
	}
	fds, _ := filepath.Glob("/proc/self/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && listening[l] {
			return true
		}
	}
	return false
}
