package cacheperf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
	"github.com/tradebench/tradebench/cacheperf/objcache"
)

// Handler returns the application's routes:
//
//	GET /cacheperf/item?id=N[&displayImage=false]   the item page (the original kit's MainServlet + Test.jsp)
//	GET /cacheperf/image?id=N                       the blob with its content type (ImageServlet)
//	GET /cacheperf/otherwork                        model objects rendered, no cache, no database
//	GET /cacheperf/stats[?format=json]              cache statistics and process memory
//	GET /cacheperf/hello                            "Hello, World!": the baseline for the HTTP stack
//
// and the original kit's Java URLs, so their LoadRunner scripts run unchanged:
// /ImageBench/servlet/MainServlet?imageID=N[&displayImage=…],
// /ImageBench/servlet/ImageServlet?action=getimage&imageID=N, /ImageBench/servlet/OtherWorkServlet.
func (a *App) Handler() http.Handler {
	return a.handler()
}

// Routes are the application's ServeMux patterns, the route labels of its request metrics
// (a test checks Handler serves exactly these).
var Routes = []string{"GET /cacheperf/item", "GET /cacheperf/image", "GET /cacheperf/otherwork", "GET /cacheperf/stats", "GET /cacheperf/hello", "GET /cacheperf/{$}", "GET /ImageBench/servlet/MainServlet", "GET /ImageBench/servlet/ImageServlet", "GET /ImageBench/servlet/OtherWorkServlet"}

func (a *App) handler() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cacheperf/item", func(w http.ResponseWriter, r *http.Request) {
		a.item(w, r, "id", r.URL.Query().Get("displayImage") != "false")
	})
	mux.HandleFunc("GET /cacheperf/image", func(w http.ResponseWriter, r *http.Request) { a.image(w, r, "id") })
	mux.HandleFunc("GET /cacheperf/otherwork", a.otherWork)
	mux.HandleFunc("GET /cacheperf/stats", a.stats)
	mux.HandleFunc("GET /cacheperf/hello", Hello)
	mux.HandleFunc("GET /cacheperf/{$}", a.index)
	mux.HandleFunc("GET /ImageBench/servlet/MainServlet", func(w http.ResponseWriter, r *http.Request) {
		// Test.jsp shows the image only when the displayImage parameter is absent
		a.item(w, r, "imageID", !r.URL.Query().Has("displayImage"))
	})
	mux.HandleFunc("GET /ImageBench/servlet/ImageServlet", func(w http.ResponseWriter, r *http.Request) {
		if act := r.URL.Query().Get("action"); act != "getimage" {
			a.badRequest(w, http.StatusBadRequest, "action must be getimage")
			return
		}
		a.image(w, r, "imageID")
	})
	mux.HandleFunc("GET /ImageBench/servlet/OtherWorkServlet", a.otherWork)
	return mux
}

// Hello is the baseline handler: the least an HTTP response can cost on this stack.
func Hello(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(helloBody)
}

var helloBody = []byte("Hello, World!")

// parseID reads a positive item id from the query parameter name.
func parseID(r *http.Request, name string) (int64, string) {
	q := r.URL.Query()
	if !q.Has(name) {
		return 0, "missing " + name + " parameter: ?" + name + "=N with N ≥ 1"
	}
	v := q.Get(name)
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, name + " " + strconv.Quote(v) + " is out of range"
		}
		return 0, name + " " + strconv.Quote(v) + " is not a whole number"
	}
	if id < 1 {
		return 0, name + " must be 1 or more, got " + v
	}
	return id, ""
}

// lookup finds the item for a request, writing the error page itself when there is none.
func (a *App) lookup(w http.ResponseWriter, r *http.Request, param string) (objcache.Result, bool) {
	id, msg := parseID(r, param)
	if msg != "" {
		a.badRequest(w, http.StatusBadRequest, msg)
		return objcache.Result{}, false
	}
	res, err := a.cache.Get(r.Context(), id)
	if err != nil {
		a.lookupFailed(w, r, id, err)
		return objcache.Result{}, false
	}
	return res, true
}

func (a *App) lookupFailed(w http.ResponseWriter, r *http.Request, id int64, err error) {
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		a.badRequest(w, http.StatusNotFound, fmt.Sprintf("no item with id %d", id))
	case r.Context().Err() != nil:
		// the client went away: nobody reads this
		w.WriteHeader(http.StatusServiceUnavailable)
	case errors.Is(err, context.DeadlineExceeded):
		a.log.Warn("item lookup timed out", "id", id, "err", err)
		errorPage(w, http.StatusGatewayTimeout, "the database did not answer in time")
	default:
		a.log.Error("item lookup failed", "id", id, "err", err)
		errorPage(w, http.StatusServiceUnavailable, "the database is unavailable")
	}
}

func (a *App) badRequest(w http.ResponseWriter, code int, msg string) {
	a.badReqs.Add(1)
	errorPage(w, code, msg)
}

func errorPage(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%d %s</title></head>\n<body><h1>%d %s</h1>\n<p>%s</p>\n</body></html>\n",
		code, http.StatusText(code), code, http.StatusText(code), html.EscapeString(msg))
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// item is the original kit's MainServlet + Test.jsp: the page is rendered afresh on every request, with
// one randomly chosen byte of the cached blob, so a hit is work on the cached object, not a
// cached page.
func (a *App) item(w http.ResponseWriter, r *http.Request, param string, displayImage bool) {
	a.itemReqs.Add(1)
	res, ok := a.lookup(w, r, param)
	if !ok {
		return
	}
	defer res.Release()
	it := res.Item
	index, value := int64(-1), 0
	switch {
	case it.Data != nil && len(it.Data) > 0:
		index = rand.Int64N(int64(len(it.Data)))
		value = int(it.Data[index])
	case res.Source == objcache.SourceStream && it.Size > 0:
		// too big to cache: read just the byte the page shows
		index = rand.Int64N(it.Size)
		rel, err := a.cache.Pin(r.Context(), 1)
		if err != nil {
			a.lookupFailed(w, r, it.ID, err)
			return
		}
		b, err := a.st.ReadAt(r.Context(), it.ID, index, 1)
		rel()
		if err != nil || len(b) != 1 {
			if err == nil {
				err = blobstore.ErrNotFound
			}
			a.lookupFailed(w, r, it.ID, err)
			return
		}
		value = int(b[0])
	}
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	b = append(b, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>CachePerf item "...)
	b = strconv.AppendInt(b, it.ID, 10)
	b = append(b, "</title>\n</head>\n<body>\n"...)
	if index >= 0 {
		b = append(b, "The image byte at index "...)
		b = strconv.AppendInt(b, index, 10)
		b = append(b, " is "...)
		b = strconv.AppendInt(b, int64(value), 10)
	} else {
		b = append(b, "The image is empty"...)
	}
	b = append(b, "<br>\n<span style=\"font-size: 24pt\"><span style=\"color: #006600\">Image Name:&nbsp;"...)
	b = append(b, html.EscapeString(it.Name)...)
	b = append(b, "<br>\nImage Content Type: &nbsp;"...)
	b = append(b, html.EscapeString(it.ContentType)...)
	b = append(b, "<br>\n</span></span>\n<hr>\n<br>\n"...)
	if displayImage {
		b = append(b, "<img src=\"/cacheperf/image?id="...)
		b = strconv.AppendInt(b, it.ID, 10)
		b = append(b, "\" alt=\""...)
		b = append(b, html.EscapeString(it.Name)...)
		b = append(b, "\">\n"...)
	}
	b = append(b, "</body>\n</html>\n"...)
	h := w.Header()
	h["Content-Type"] = htmlType
	h["X-Cache"] = sourceHeader[res.Source]
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
	*bp = b
	bufPool.Put(bp)
}

var (
	htmlType     = []string{"text/html; charset=utf-8"}
	sourceHeader = map[objcache.Source][]string{
		objcache.SourceMemory: {"memory"}, objcache.SourceDisk: {"disk"}, objcache.SourceRemote: {"remote"},
		objcache.SourceDB: {"db"}, objcache.SourceStream: {"stream"},
	}
)

// streamChunk is how much of an uncacheable blob the image page reads at a time.
const streamChunk = 256 << 10

// image is the original kit's ImageServlet: the blob itself, with its content type.
func (a *App) image(w http.ResponseWriter, r *http.Request, param string) {
	a.imageReqs.Add(1)
	res, ok := a.lookup(w, r, param)
	if !ok {
		return
	}
	defer res.Release()
	it := res.Item
	h := w.Header()
	h.Set("Content-Type", it.ContentType)
	h["X-Cache"] = sourceHeader[res.Source]
	if res.Source != objcache.SourceStream {
		h.Set("Content-Length", strconv.Itoa(len(it.Data)))
		if !res.Pinned() {
			// The cached blob may be evicted while a slow client reads it: pin it meanwhile,
			// so it stays inside the window until the response is written.
			rel, err := a.cache.Pin(r.Context(), int64(len(it.Data)))
			if err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			defer rel()
		}
		w.Write(it.Data)
		return
	}
	h.Set("Content-Length", strconv.FormatInt(it.Size, 10))
	for off := int64(0); off < it.Size; off += streamChunk {
		n := int(min(streamChunk, it.Size-off))
		rel, err := a.cache.Pin(r.Context(), int64(n))
		if err != nil {
			return // client gone; the response is cut short
		}
		b, err := a.st.ReadAt(r.Context(), it.ID, off, n)
		if err == nil && len(b) != n {
			err = fmt.Errorf("item %d changed size while streaming", it.ID)
		}
		if err == nil {
			_, err = w.Write(b)
		}
		rel()
		if err != nil {
			if r.Context().Err() == nil {
				a.log.Error("streaming item failed", "id", it.ID, "offset", off, "err", err)
			}
			return // headers are sent: a short body is the only signal left
		}
	}
}

// modelItem is the original kit's Item model class, which the other-work page creates fresh.
type modelItem struct {
	ID          int
	Name        string
	Data        []byte
	ContentType string
}

// otherWork is the original kit's OtherWorkServlet + Test2.jsp: create a model object with a random id and
// render it. No cache, no database.
//
//go:noinline
func (a *App) otherWork(w http.ResponseWriter, r *http.Request) {
	a.otherReqs.Add(1)
	index := rand.IntN(1000)
	item := newModelItem(index, "Image"+strconv.Itoa(index), nil, "p/jpeg")
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	b = append(b, "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>CachePerf other work</title>\n</head>\n<body>\n"...)
	b = append(b, "<span style=\"font-size: 24pt\"><span style=\"color: #006600\">Image ID:&nbsp;  "...)
	b = strconv.AppendInt(b, int64(item.ID), 10)
	b = append(b, "<br> Image Name:&nbsp;  "...)
	b = append(b, html.EscapeString(item.Name)...)
	b = append(b, "<br>\nImage Content Type: &nbsp;  "...)
	b = append(b, html.EscapeString(item.ContentType)...)
	b = append(b, "<br>\n</span></span>\n<br>\n</body>\n</html>\n"...)
	h := w.Header()
	h["Content-Type"] = htmlType
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
	*bp = b
	bufPool.Put(bp)
}

// newModelItem allocates the model object on the heap, as the original kit's servlet did with new Item.
//
//go:noinline
func newModelItem(id int, name string, data []byte, contentType string) *modelItem {
	return &modelItem{ID: id, Name: name, Data: data, ContentType: contentType}
}

// StatsReport is the stats page's content.
type StatsReport struct {
	Time     time.Time        `json:"time"`
	Uptime   float64          `json:"uptime_seconds"`
	Store    string           `json:"store"`
	Cache    objcache.Stats   `json:"cache"`
	HitRatio float64          `json:"hit_ratio"`
	Requests map[string]int64 `json:"requests"`
	Process  ProcessMemory    `json:"process"`
}

// Report returns the current statistics.
func (a *App) Report() StatsReport {
	cs := a.cache.Stats()
	return StatsReport{
		Time: time.Now().UTC(), Uptime: time.Since(a.started).Seconds(), Store: a.st.Kind(),
		Cache: cs, HitRatio: cs.HitRatio(),
		Requests: map[string]int64{"item": a.itemReqs.Load(), "image": a.imageReqs.Load(), "otherwork": a.otherReqs.Load(), "bad": a.badReqs.Load()},
		Process:  ReadProcessMemory(),
	}
}

func (a *App) stats(w http.ResponseWriter, r *http.Request) {
	rep := a.Report()
	w.Header().Set("Cache-Control", "no-store")
	switch f := r.URL.Query().Get("format"); f {
	case "json":
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
		return
	case "", "html":
	default:
		a.badRequest(w, http.StatusBadRequest, "format must be html or json, got "+strconv.Quote(f))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := statsPage.Execute(w, rep); err != nil {
		a.log.Error("stats page", "err", err)
	}
}

func (a *App) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>CachePerf</title></head>
<body><h1>CachePerf</h1>
<ul>
<li><a href="/cacheperf/item?id=1">item 1</a> (with its image) · <a href="/cacheperf/item?id=1&amp;displayImage=false">item 1 without the image</a> (what the benchmark requests)</li>
<li><a href="/cacheperf/otherwork">other work</a> (no cache, no database)</li>
<li><a href="/cacheperf/stats">cache statistics</a> · <a href="/cacheperf/stats?format=json">as JSON</a></li>
</ul></body></html>
`)
}
