package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/tradebench/tradebench/internal/testing/headless"
)

// browser is headless chromium driven over the DevTools protocol: it shows one page, and the
// test reads the live DOM with Runtime.evaluate rather than a one-shot dump, so it can wait for
// what a user would see.
type browser struct {
	t    *testing.T
	cmd  *exec.Cmd
	ws   *websocket.Conn
	next int
}

// browserProfile is a fresh profile directory for chromium. Removed after the browser's cleanup
// (registered before it, so it runs after), best effort: a crash reporter chromium forked may
// still be closing files in it, which is not the test's failure.
func browserProfile(t *testing.T) string {
	dir, err := os.MkdirTemp("", "tradebench-browser-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 20 && os.RemoveAll(dir) != nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
	})
	return dir
}

func startBrowser(t *testing.T, profile, url string) *browser {
	t.Helper()
	bin := headless.Require(t)
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+profile,
		"--remote-debugging-port=0", "--remote-allow-origins=*", "--window-size=1000,640", url)
	// Its own process group, so the cleanup ends chromium's helper processes too: left running,
	// they kept writing into the profile while the test's TempDir was being removed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, cmd: cmd}
	t.Cleanup(func() {
		if b.ws != nil {
			b.ws.Close()
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	// chromium writes the port it chose to DevToolsActivePort in the profile
	var port string
	for deadline := time.Now().Add(30 * time.Second); port == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			port, _, _ = strings.Cut(string(data), "\n")
		}
	}
	if port == "" {
		t.Fatal("chromium did not open its DevTools port")
	}
	var targets []struct{ Type, URL, WebSocketDebuggerURL string }
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err != nil {
			continue
		}
		json.NewDecoder(resp.Body).Decode(&targets)
		resp.Body.Close()
		for _, tg := range targets {
			if tg.Type == "page" && strings.HasPrefix(tg.URL, "http://") {
				ws, err := websocket.Dial(tg.WebSocketDebuggerURL, "", "http://127.0.0.1/")
				if err != nil {
					t.Fatal(err)
				}
				b.ws = ws
				return b
			}
		}
	}
	t.Fatalf("chromium never showed %s: %+v", url, targets)
	return nil
}

// call sends one DevTools command and returns its result.
func (b *browser) call(method string, params any, result any) {
	b.t.Helper()
	b.next++
	id := b.next
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": id, "method": method, "params": params}); err != nil {
		b.t.Fatal(err)
	}
	b.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(b.ws, &m); err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		if m.ID != id {
			continue // an event
		}
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			json.Unmarshal(m.Result, result)
		}
		return
	}
}

// eval evaluates a JavaScript expression in the page and returns its string value.
func (b *browser) eval(expr string) string {
	var r struct{ Result struct{ Value any } }
	b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	return fmt.Sprint(r.Result.Value)
}

// waitFor polls expr until it returns want.
func (b *browser) waitFor(what, expr, want string) {
	b.t.Helper()
	var got string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = b.eval(expr); got == want {
			return
		}
	}
	b.t.Fatalf("%s: %s is %q, want %q", what, expr, got, want)
}

func (b *browser) screenshot(path string) {
	var r struct{ Data string }
	b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// TestQuotesPageLiveInBrowser: in a real browser the pages' stylesheets apply under the CSP
// (mutant: scripts/mutants.d/web-csp-style-none.sed), and with JavaScript on the quotes page
// follows the stream — buys made after the page loaded show in its cells without a reload. Without
// JavaScript the page is the server's, complete. TRADEBENCH_SCREENSHOT_DIR=DIR keeps a
// screenshot of the live page (docs/).
func TestQuotesPageLiveInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	s := startTest(t, 10, 10)
	page := s.URL() + "/trade/quotes?symbols=s:1,s:2,s:3,s:4,s:5"

	// Without JavaScript a browser gets exactly the served page: complete, with the live
	// status hidden.
	c := newClient()
	get(t, c, s.URL()+"/daytrader/app?action=login&uid=uid:1&passwd=xxx")
	if code, off := get(t, c, page); code != 200 || !regexp.MustCompile(`<tr data-symbol="s:1">`).MatchString(off) ||
		!strings.Contains(off, `data-live-status hidden`) || !strings.Contains(off, `name=symbol value=s:1>`) {
		t.Fatalf("quotes page as served (JavaScript off): %d\n%.1500s", code, off)
	}

	// The browser logs in through the DayTrader contract's GET login, then opens the page.
	profile := browserProfile(t)
	b := startBrowser(t, profile, s.URL()+"/daytrader/app?action=login&uid=uid:1&passwd=xxx")
	b.waitFor("login", `document.body.innerText.includes("Welcome uid:1")`, "true")
	// the stylesheets are files the CSP allows (style-src 'self'): the browser applies them, on
	// the StockTrader pages and the JSF contract's (their header's background #1f3a5f)
	b.waitFor("stylesheet applied", `getComputedStyle(document.querySelector("header")).backgroundColor`, "rgb(31, 58, 95)")
	b.call("Page.navigate", map[string]any{"url": s.URL() + "/daytrader/welcome.faces"}, nil)
	b.waitFor("JSF stylesheet applied",
		`(document.querySelector("#header") && getComputedStyle(document.querySelector("#header")).backgroundColor)`, "rgb(31, 58, 95)")
	b.call("Page.navigate", map[string]any{"url": page}, nil)
	b.waitFor("live status", `(document.querySelector("[data-live-status]")||{}).textContent`, "live")
	waitSubscribed(t, s, 1)
	ctx := context.Background()
	before, err := s.Service().GetQuote(ctx, "s:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Service().Buy(ctx, "uid:2", "s:1", 777); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Service().GetQuote(ctx, "s:1")
	// live.js finds the cells by their column (no data attribute per cell): volume 3rd, price 6th
	b.waitFor("volume of s:1", `document.querySelector('tr[data-symbol="s:1"]').cells[2].textContent`, strconv.FormatInt(before.Volume+777, 10))
	b.waitFor("price of s:1", `document.querySelector('tr[data-symbol="s:1"]').cells[5].textContent`, "$"+after.Price.String())
	// and the quotes table's class right-aligns its number columns (no class per cell)
	b.waitFor("price column right-aligned", `getComputedStyle(document.querySelector('tr[data-symbol="s:1"]').cells[5]).textAlign`, "right")
	b.waitFor("company column left-aligned", `getComputedStyle(document.querySelector('tr[data-symbol="s:1"]').cells[1]).textAlign`, "left")
	if dir := os.Getenv("TRADEBENCH_SCREENSHOT_DIR"); dir != "" {
		for i, sym := range []string{"s:3", "s:4", "s:2"} { // a few more moves, the last still flashing
			s.Service().Buy(ctx, "uid:2", sym, int64(100*(i+1)))
			time.Sleep(300 * time.Millisecond)
		}
		b.screenshot(filepath.Join(dir, "quotes-live.png"))
	}
}
