// Package headless runs pages in headless Chromium for tests and documentation: the DOM after a
// page's scripts ran, and screenshots. Chromium is Debian's package "chromium".
package headless

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Find returns the Chromium executable, or an error saying how to install it.
func Find() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no headless Chromium (install it: apt-get install chromium)")
}

// Require returns Chromium for a test, skipping the test when there is none — unless the CI
// environment variable is set: CI must never skip, so there the test fails.
func Require(t testing.TB) string {
	t.Helper()
	p, err := Find()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("headless: %v (CI is set, so this test may not be skipped)", err)
		}
		t.Skipf("headless: %v", err)
	}
	return p
}

// Width and Height are the window a page is laid out in: a laptop screen.
const (
	Width  = 1280
	Height = 900
)

// run runs Chromium headless on a local file with its network cut off (every host resolves to
// nothing and the proxy is a closed port), so a page that needs the network shows it.
func run(ctx context.Context, bin, page string, extra ...string) ([]byte, error) {
	abs, err := filepath.Abs(page)
	if err != nil {
		return nil, err
	}
	return runURL(ctx, bin, "file://"+abs, extra...)
}

// runURL is run on a URL.
func runURL(ctx context.Context, bin, u string, extra ...string) ([]byte, error) {
	profile, err := os.MkdirTemp("", "tradebench-chromium-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-component-update",
		"--user-data-dir=" + profile, "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
		"--hide-scrollbars", "--virtual-time-budget=10000"}
	args = append(args, extra...)
	args = append(args, u)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("chromium: %v\n%s", err, stderr.b)
	}
	return out, nil
}

// DumpDOM loads a local HTML file, lets its scripts run, and returns the resulting DOM as HTML.
func DumpDOM(ctx context.Context, bin, page string) (string, error) {
	out, err := run(ctx, bin, page, "--window-size="+strconv.Itoa(Width)+","+strconv.Itoa(Height), "--dump-dom")
	return string(out), err
}

// DumpServedDOM loads a page a test serves on 127.0.0.1 (every other host stays unreachable),
// lets it run for budget of virtual time, and returns its DOM. Virtual time stands still while
// a request is open: a page that follows an event stream must close it for the budget to end.
func DumpServedDOM(ctx context.Context, bin, url string, budget time.Duration) (string, error) {
	out, err := runURL(ctx, bin, url, "--window-size="+strconv.Itoa(Width)+","+strconv.Itoa(Height),
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--virtual-time-budget="+strconv.FormatInt(budget.Milliseconds(), 10), "--dump-dom")
	return string(out), err
}

// Screenshot writes a PNG of a local HTML file laid out width pixels wide, height tall.
func Screenshot(ctx context.Context, bin, page, png string, width, height int) error {
	abs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	_, err = run(ctx, bin, page, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+abs)
	return err
}

// limitedBuffer keeps the first 64 KiB written to it: enough of Chromium's log to explain a
// failure.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 64<<10 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
