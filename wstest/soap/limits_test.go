package soap

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/alloctest"
	"github.com/tradebench/tradebench/wstest"
)

// TestHostileBodiesBoundedMemory sends envelopes at the byte limit holding hundreds of times
// more items than the item limit: each must be refused with a fault, and the request must cost
// memory in proportion to the body (read once), not to the items it claims.
func TestHostileBodiesBoundedMemory(t *testing.T) {
	const size = wstest.DefaultMaxBodyBytes - 256
	fill := func(head, item, tail string) string {
		n := (size - len(env("")) - len(head) - len(tail)) / len(item)
		return head + strings.Repeat(item, n) + tail
	}
	structs := fill(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array>`, `<l/>`, `</array></EchoStruct>`)
	chain := nested((size - 200) / len("<Next><i>1</i></Next>"))
	cases := []struct {
		name, body, want string
		chunked          bool // no Content-Length: the body is read into a growing buffer
	}{
		{"empty structs", env(structs), "too many items", false},
		{"empty structs, chunked", env(structs), "too many items", true},
		{"list chain", chain, "more than", false},
		{"order lines", env(fill(`<GetOrder xmlns="uri:WSTestWeb-TestService"><messageSize>`, `9`, `</messageSize></GetOrder>`)), "not an xs:int", false},
	}
	h := NewHandler(wstest.Limits{}, nil)
	post := func(body []byte, chunked bool) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, Path, bytes.NewReader(body))
		if chunked {
			r.ContentLength = -1
		}
		h.ServeHTTP(w, r)
		return w
	}
	post([]byte(env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`)), false) // warm up the pools
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if len(body) > size {
				t.Fatalf("body of %d bytes is over the limit", len(body))
			}
			var w *httptest.ResponseRecorder
			alloc := alloctest.During(func() { w = post(body, tc.chunked) })
			var m Message
			if err := DecodeResponse(w.Body.Bytes(), wstest.Limits{}, &m); err != nil || m.Fault == nil || !strings.Contains(m.Fault.String, tc.want) {
				t.Fatalf("status %d %.300s, want a fault containing %q", w.Code, w.Body, tc.want)
			}
			if limit := 3*uint64(len(body)) + 1<<20; alloc > limit {
				t.Fatalf("a %d-byte body allocated %d bytes (limit %d)", len(body), alloc, limit)
			}
			t.Logf("%d-byte body: %d bytes allocated", len(body), alloc)
		})
	}
}

// TestDefaultNamespaceWithEmptyHeader round-trips every operation written the soapUI/JAX-WS way
// — soapenv prefix, an empty <soapenv:Header/> — with the operation element in the default
// namespace, through the HTTP handler.
func TestDefaultNamespaceWithEmptyHeader(t *testing.T) {
	srv := httptest.NewServer(NewHandler(wstest.Limits{}, nil))
	defer srv.Close()
	for _, m := range []Message{
		{Op: wstest.EchoVoid},
		{Op: wstest.EchoStruct, Structs: wstest.MakeStructs(3)},
		{Op: wstest.EchoList, List: wstest.MakeList(3)},
		{Op: wstest.EchoSynthetic, Synth: wstest.MakeSynthetic(16)},
		{Op: wstest.GetOrder, OrderID: 4, CustomerID: 5, Size: 3},
	} {
		t.Run(m.Op.String(), func(t *testing.T) {
			req := string(AppendRequest(nil, &m))
			req = strings.ReplaceAll(req, "soap:", "soapenv:")
			req = strings.Replace(req, "xmlns:soap=", "xmlns:soapenv=", 1)
			req = strings.Replace(req, "<soapenv:Body>", "<soapenv:Header/><soapenv:Body>", 1)
			if !strings.Contains(req, `<soapenv:Header/><soapenv:Body><`+m.Op.String()+` xmlns="`+tns+`">`) {
				t.Fatalf("request is not in the shape under test: %s", req)
			}
			resp, err := http.Post(srv.URL+Path, "text/xml; charset=utf-8", strings.NewReader(req))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var back Message
			if err := DecodeResponse(b, wstest.Limits{}, &back); err != nil || resp.StatusCode != 200 || back.Fault != nil {
				t.Fatalf("%d %v %+v\n%s", resp.StatusCode, err, back.Fault, b)
			}
			checkSame(t, &m, &back)
			if m.Op == wstest.GetOrder {
				if err := wstest.CheckOrder(back.Order, m.OrderID, m.CustomerID, m.Size); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
