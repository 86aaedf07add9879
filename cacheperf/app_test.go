package cacheperf

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
	"github.com/tradebench/tradebench/cacheperf/objcache"
	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/internal/testing/servetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testSize = 8 << 10

// startApp loads n items into the store at dsn and serves the app on a random loopback port.
func startApp(t *testing.T, dsn string, n int, cc objcache.Config) *Server {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Load(ctx, blobstore.LoadConfig{Items: n, Size: testSize, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if cc.Budget == 0 {
		cc.Budget = 8 << 20
	}
	s, err := Start(ctx, Config{DB: dsn, Cache: cc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sqliteDSN(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "items.db") }

func fetch(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

var byteLine = regexp.MustCompile(`The image byte at index (\d+) is (\d+)<br>`)

// checkItemPage checks the page shows item id's name, type and a true byte of its blob.
func checkItemPage(t *testing.T, body []byte, id int64, size int64, wantImg bool) {
	t.Helper()
	blob := make([]byte, size)
	blobstore.FillBlob(blob, 5, id)
	m := byteLine.FindSubmatch(body)
	if m == nil {
		t.Fatalf("item page lacks the random byte line:\n%s", body)
	}
	idx, _ := strconv.Atoi(string(m[1]))
	val, _ := strconv.Atoi(string(m[2]))
	if idx < 0 || int64(idx) >= size || int(blob[idx]) != val {
		t.Fatalf("page says byte %d is %d; the blob has %d bytes, that byte is %v", idx, val, size, blob[min(idx, len(blob)-1)])
	}
	if !bytes.Contains(body, []byte("Image Name:&nbsp;"+blobstore.ItemName(id)+"<br>")) ||
		!bytes.Contains(body, []byte("Image Content Type: &nbsp;"+blobstore.ContentType)) {
		t.Fatalf("item page lacks name or content type:\n%s", body)
	}
	img := `<img src="/cacheperf/image?id=` + strconv.FormatInt(id, 10) + `"`
	if got := bytes.Contains(body, []byte(img)); got != wantImg {
		t.Fatalf("image tag present = %v, want %v:\n%s", got, wantImg, body)
	}
}

func TestItemPageFromDBThenCache(t *testing.T) {
	for _, db := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{{"sqlite", sqliteDSN}, {"postgres", func(t *testing.T) string { return pgtest.DSN(t) }}} {
		t.Run(db.name, func(t *testing.T) {
			s := startApp(t, db.dsn(t), 20, objcache.Config{})
			for i, want := range []string{"db", "memory", "memory"} {
				resp, body := fetch(t, s.URL+"/cacheperf/item?id=7&displayImage=false")
				if resp.StatusCode != 200 || resp.Header.Get("X-Cache") != want {
					t.Fatalf("request %d: status %d, X-Cache %q, want 200 from %s", i, resp.StatusCode, resp.Header.Get("X-Cache"), want)
				}
				checkItemPage(t, body, 7, testSize, false)
			}
			_, body := fetch(t, s.URL+"/cacheperf/item?id=7")
			checkItemPage(t, body, 7, testSize, true)

			resp, img := fetch(t, s.URL+"/cacheperf/image?id=7")
			want := make([]byte, testSize)
			blobstore.FillBlob(want, 5, 7)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != blobstore.ContentType || !bytes.Equal(img, want) {
				t.Fatalf("image: status %d type %q, %d bytes, equal %v", resp.StatusCode, resp.Header.Get("Content-Type"), len(img), bytes.Equal(img, want))
			}
			// the original kit's URLs
			_, body = fetch(t, s.URL+"/ImageBench/servlet/MainServlet?imageID=7&displayImage=false")
			checkItemPage(t, body, 7, testSize, false)
			resp, img = fetch(t, s.URL+"/ImageBench/servlet/ImageServlet?action=getimage&imageID=7")
			if resp.StatusCode != 200 || !bytes.Equal(img, want) {
				t.Fatalf("seed image URL: status %d", resp.StatusCode)
			}

			var rep StatsReport
			_, js := fetch(t, s.URL+"/cacheperf/stats?format=json")
			if err := json.Unmarshal(js, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Cache.Loads != 1 || rep.Cache.Hits != 6 || rep.Requests["item"] != 5 || rep.Requests["image"] != 2 || rep.Store != db.name || rep.Process.RSS == 0 {
				t.Fatalf("stats: %+v", rep)
			}
			// the same numbers on the metrics endpoint's registry, requests by the mux's pattern
			for _, c := range []struct {
				name   string
				labels map[string]string
				want   float64
			}{
				{"tradebench_cache_hits_total", map[string]string{"tier": "memory"}, 6},
				{"tradebench_cache_misses_total", nil, 1},
				{"tradebench_cache_entries", nil, 1},
				{"tradebench_requests_total", map[string]string{"route": "GET /cacheperf/item", "code": "200"}, 4},
				{"tradebench_requests_total", map[string]string{"route": "GET /ImageBench/servlet/MainServlet"}, 1},
				{"tradebench_request_duration_seconds", map[string]string{"route": "GET /cacheperf/image"}, 1},
			} {
				if got, err := s.Metrics.Sum(c.name, c.labels); err != nil || got != c.want {
					t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, got, err, c.want)
				}
			}
			if n, _ := s.Metrics.Sum("tradebench_cache_bytes", nil); n < testSize {
				t.Errorf("cache bytes %v, want at least one item's %d", n, testSize)
			}
		})
	}
}

func TestBadIDsGet4xx(t *testing.T) {
	s := startApp(t, sqliteDSN(t), 3, objcache.Config{})
	cases := map[string]int{
		"/cacheperf/item":                                             400,
		"/cacheperf/item?id=":                                         400,
		"/cacheperf/item?id=abc":                                      400,
		"/cacheperf/item?id=1.5":                                      400,
		"/cacheperf/item?id=-1":                                       400,
		"/cacheperf/item?id=0":                                        400,
		"/cacheperf/item?id=+1x":                                      400,
		"/cacheperf/item?id=99999999999999999999999":                  400,
		"/cacheperf/item?id=9223372036854775807":                      404,
		"/cacheperf/item?id=4":                                        404,
		"/cacheperf/item?id=%00":                                      400,
		"/cacheperf/image":                                            400,
		"/cacheperf/image?id=-5":                                      400,
		"/cacheperf/image?id=x":                                       400,
		"/cacheperf/image?id=1000":                                    404,
		"/ImageBench/servlet/MainServlet?imageID=bad":                 400,
		"/ImageBench/servlet/ImageServlet?imageID=1":                  400, // no action=getimage
		"/ImageBench/servlet/ImageServlet?action=getimage&imageID=77": 404,
		"/cacheperf/stats?format=xml":                                 400,
		"/cacheperf/nothing":                                          404,
	}
	for path, want := range cases {
		resp, body := fetch(t, s.URL+path)
		if resp.StatusCode != want {
			t.Errorf("GET %s: status %d, want %d: %s", path, resp.StatusCode, want, body)
		}
		if want == 400 && !bytes.Contains(body, []byte("400 Bad Request")) {
			t.Errorf("GET %s: error page does not say what is wrong: %s", path, body)
		}
	}
	resp, err := http.Post(s.URL+"/cacheperf/item?id=1", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST item: status %d, want 405", resp.StatusCode)
	}
	// the errors did not break anything
	resp, body := fetch(t, s.URL+"/cacheperf/item?id=1&displayImage=false")
	if resp.StatusCode != 200 {
		t.Fatalf("good request after bad ones: %d %s", resp.StatusCode, body)
	}
}

func TestOtherWorkHelloAndStatsPages(t *testing.T) {
	s := startApp(t, sqliteDSN(t), 2, objcache.Config{})
	resp, body := fetch(t, s.URL+"/cacheperf/otherwork")
	if resp.StatusCode != 200 || !regexp.MustCompile(`Image ID:&nbsp;  (\d+)<br> Image Name:&nbsp;  Image(\d+)<br>`).Match(body) || !bytes.Contains(body, []byte("p/jpeg")) {
		t.Fatalf("other work page: %d\n%s", resp.StatusCode, body)
	}
	m := regexp.MustCompile(`Image ID:&nbsp;  (\d+)<br> Image Name:&nbsp;  Image(\d+)<br>`).FindSubmatch(body)
	if string(m[1]) != string(m[2]) {
		t.Fatalf("other work page: id %s but name Image%s", m[1], m[2])
	}
	if _, body := fetch(t, s.URL+"/ImageBench/servlet/OtherWorkServlet"); !bytes.Contains(body, []byte("p/jpeg")) {
		t.Fatalf("seed other-work URL: %s", body)
	}
	if resp, body := fetch(t, s.URL+"/cacheperf/hello"); resp.StatusCode != 200 || string(body) != "Hello, World!" {
		t.Fatalf("hello: %d %q", resp.StatusCode, body)
	}
	resp, body = fetch(t, s.URL+"/cacheperf/stats")
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("hit ratio")) || !bytes.Contains(body, []byte("peak resident")) {
		t.Fatalf("stats page: %d\n%s", resp.StatusCode, body)
	}
	var rep StatsReport
	_, js := fetch(t, s.URL+"/cacheperf/stats?format=json")
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Requests["otherwork"] != 2 || rep.Cache.Loads != 0 || rep.Cache.Hits != 0 {
		t.Fatalf("other work touched the cache: %+v", rep)
	}
}

// An item heavier than the window is never loaded whole: the page reads one byte, the image
// is streamed in chunks.
func TestUncacheableItemIsStreamed(t *testing.T) {
	dsn := sqliteDSN(t)
	s := startApp(t, dsn, 2, objcache.Config{Budget: 4 << 20, Window: 1 << 20})
	st, err := blobstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const big = 3<<20 + 123
	blob := make([]byte, big)
	blobstore.FillBlob(blob, 5, 9)
	if err := st.Put(context.Background(), &blobstore.Item{Meta: blobstore.Meta{ID: 9, Name: blobstore.ItemName(9), ContentType: blobstore.ContentType}, Data: blob}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		resp, body := fetch(t, s.URL+"/cacheperf/item?id=9&displayImage=false")
		if resp.StatusCode != 200 || resp.Header.Get("X-Cache") != "stream" {
			t.Fatalf("big item page: %d from %q", resp.StatusCode, resp.Header.Get("X-Cache"))
		}
		checkItemPage(t, body, 9, big, false)
	}
	resp, img := fetch(t, s.URL+"/cacheperf/image?id=9")
	if resp.StatusCode != 200 || !bytes.Equal(img, blob) {
		t.Fatalf("streamed image: status %d, %d bytes, equal %v", resp.StatusCode, len(img), bytes.Equal(img, blob))
	}
	if st := s.App.Cache().Stats(); st.Entries != 0 || st.Rejected != 3 {
		t.Fatalf("big item was cached: %+v", st)
	}
}

func TestCacheModes(t *testing.T) {
	for _, mode := range []string{objcache.ModeNone, objcache.ModeMemoryDisk} {
		t.Run(mode, func(t *testing.T) {
			s := startApp(t, sqliteDSN(t), 5, objcache.Config{Mode: mode, DiskDir: t.TempDir()})
			for i := 0; i < 2; i++ {
				resp, body := fetch(t, s.URL+"/cacheperf/item?id=2&displayImage=false")
				checkItemPage(t, body, 2, testSize, false)
				want := "db"
				if mode != objcache.ModeNone && i > 0 {
					want = "memory"
				}
				if got := resp.Header.Get("X-Cache"); got != want {
					t.Fatalf("request %d: X-Cache %q, want %q", i, got, want)
				}
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Start(ctx, Config{}); err == nil {
		t.Error("Start without a database succeeded")
	}
	if _, err := Start(ctx, Config{DB: sqliteDSN(t), Cache: objcache.Config{Mode: "bogus", Budget: 8 << 20}}); err == nil {
		t.Error("Start with a bad cache mode succeeded")
	}
	if _, err := Start(ctx, Config{DB: sqliteDSN(t), Cache: objcache.Config{Budget: 8 << 20}, Listen: "256.0.0.1:0"}); err == nil {
		t.Error("Start with a bad listen address succeeded")
	}
}

// TestSlowBodyIsCut: the CachePerf server had only a header timeout, so a client trickling a
// request body kept its connection (and a goroutine) forever.
func TestSlowBodyIsCut(t *testing.T) {
	ctx := context.Background()
	dsn := sqliteDSN(t)
	st, err := blobstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Load(ctx, blobstore.LoadConfig{Items: 2, Size: testSize, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s, err := Start(ctx, Config{DB: dsn, Cache: objcache.Config{Budget: 8 << 20}, HTTP: httpserve.Options{ReadTimeout: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	servetest.CheckSlowBodyCut(t, s.Addr, "/cacheperf/item?id=1", 3*time.Second)
}

// A started server logs one line: its URL and its cache's mode and bounds, so a script (or the
// command's test) can read the address of a server started on port 0.
// (Mutant cacheperf-start-line-no-url: the line leaves out the URL.)
func TestStartLogsWhereItServes(t *testing.T) {
	dsn := sqliteDSN(t)
	ctx := context.Background()
	st, err := blobstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Load(ctx, blobstore.LoadConfig{Items: 2, Size: testSize, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	s, err := Start(ctx, Config{Store: st, Cache: objcache.Config{Budget: 8 << 20}, Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	line := strings.SplitN(buf.String(), "\n", 2)[0]
	for _, want := range []string{`msg="cacheperf serving"`, "url=" + s.URL + "/cacheperf/", "cache=memory", "budget=8MB"} {
		if !strings.Contains(line, want) {
			t.Errorf("start-up line %q lacks %q", line, want)
		}
	}
}
