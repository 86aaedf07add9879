package objcache

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
)

// startServer runs a real redis-server or memcached on a free loopback port for the test. It
// skips when the program is not installed, unless CI is set (CI installs both).
func startServer(t *testing.T, prog string, args func(port int) []string) string {
	t.Helper()
	path, err := exec.LookPath(prog)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; CI must install it (apt-get install redis-server memcached)", prog)
		}
		t.Skipf("%s is not installed (apt-get install redis-server memcached)", prog)
	}
	for attempt := 0; attempt < 3; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cmd := exec.Command(path, args(port)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
			select {
			case <-exited: // port taken meanwhile: try another
			default:
				if c, err := net.Dial("tcp", addr); err == nil {
					c.Close()
					t.Cleanup(func() { cmd.Process.Kill(); <-exited })
					return addr
				}
				time.Sleep(20 * time.Millisecond)
				continue
			}
			break
		}
		cmd.Process.Kill()
		<-exited
	}
	t.Fatalf("could not start %s", prog)
	return ""
}

func redisServer(t *testing.T) string {
	return startServer(t, "redis-server", func(port int) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"}
	})
}

func memcachedServer(t *testing.T) string {
	return startServer(t, "memcached", func(port int) []string {
		a := []string{"-p", strconv.Itoa(port), "-l", "127.0.0.1", "-U", "0", "-m", "64"}
		if os.Geteuid() == 0 {
			a = append(a, "-u", "root") // memcached refuses to run as root without naming the user
		}
		return a
	})
}

func TestRemoteCaches(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"redis", func(t *testing.T) string { return "redis://" + redisServer(t) + "/3" }},
		{"memcached", func(t *testing.T) string { return "memcached://" + memcachedServer(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const size = 200 << 10
			st := loadedStore(t, 20, size)
			c := newCache(t, Config{Mode: tc.url(t)}, st)
			if c.Mode() != tc.name {
				t.Fatalf("mode %q", c.Mode())
			}
			want := make([]byte, size)
			blobstore.FillBlob(want, 1, 5)
			for i, src := range []Source{SourceDB, SourceRemote, SourceRemote} {
				r := get(t, c, 5)
				if r.Source != src || r.Item.ID != 5 || r.Item.Name != blobstore.ItemName(5) || !bytes.Equal(r.Item.Data, want) {
					t.Fatalf("Get %d: source %v, item %d %q, content equal %v; want from %v", i, r.Source, r.Item.ID, r.Item.Name, bytes.Equal(r.Item.Data, want), src)
				}
				if !r.Pinned() {
					t.Fatalf("Get %d: an item outside the process's cache must hold a window permit", i)
				}
				r.Release()
			}
			if _, err := c.Get(context.Background(), 999); err == nil {
				t.Fatal("unknown id found")
			}
			s := c.Stats()
			if s.Remote == nil || s.Remote.Hits != 2 || s.Remote.Sets != 1 || s.Remote.SetErrors != 0 || s.RemoteHits != 2 || s.Loads != 1 {
				t.Fatalf("stats: %+v remote %+v", s, s.Remote)
			}
			// many concurrent lookups of several keys over the pooled connections
			errs := make(chan error, 32)
			for g := 0; g < 32; g++ {
				go func(g int) {
					for i := 0; i < 20; i++ {
						id := int64(1 + (g+i)%20)
						r, err := c.Get(context.Background(), id)
						if err == nil && (r.Item.ID != id || len(r.Item.Data) != size) {
							err = fmt.Errorf("got item %d (%d bytes) for %d", r.Item.ID, len(r.Item.Data), id)
						}
						if err == nil {
							r.Release()
						}
						if err != nil {
							errs <- err
							return
						}
					}
					errs <- nil
				}(g)
			}
			for g := 0; g < 32; g++ {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if s := c.Stats(); s.Remote.Errors != 0 || s.Loads > 20 {
				t.Fatalf("after concurrent use: %+v remote %+v", s, s.Remote)
			}
			windowIdle(t, c)
		})
	}
}

func TestRemoteCacheDownFallsBackToTheDatabase(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil && os.Getenv("CI") == "" {
		t.Skip("redis-server is not installed")
	}
	st := loadedStore(t, 3, 1024)
	path, _ := exec.LookPath("redis-server")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for i := 0; i < 250; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	c := newCache(t, Config{Mode: "redis://" + addr}, st)
	r := get(t, c, 1)
	r.Release()
	cmd.Process.Kill()
	cmd.Wait()
	r = get(t, c, 1) // the server is gone: the page still works, from the database
	if r.Source != SourceDB {
		t.Fatalf("with the cache server down: source %v, want db", r.Source)
	}
	r.Release()
	if s := c.Stats(); s.Remote.Errors == 0 {
		t.Fatalf("the failed cache lookups were not counted: %+v", s.Remote)
	}
	windowIdle(t, c)
}

func TestRemoteUnreachableFailsFast(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now
	st := loadedStore(t, 1, 64)
	for _, u := range []string{"redis://" + addr, "memcached://" + addr, "redis://" + addr + "/notanumber", "redis:///"} {
		if c, err := New(Config{Mode: u}, st); err == nil {
			c.Close()
			t.Errorf("New(%q) succeeded", u)
		}
	}
}
