package wsserver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/wstest"
	"github.com/tradebench/tradebench/wstest/grpcapi"
	"github.com/tradebench/tradebench/wstest/jsonapi"
	"github.com/tradebench/tradebench/wstest/soap"
	pb "github.com/tradebench/tradebench/wstest/wstestpb"
)

func start(t testing.TB, lim wstest.Limits) *Running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, err := Start(ctx, Config{Listen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := r.Wait(); err != nil {
			t.Error(err)
		}
	})
	return r
}

func base(r *Running) string { return "http://" + r.HTTPAddr.String() }

// clients returns one client of every encoding and transport flavour.
func clients(t testing.TB, r *Running) map[string]wstest.Client {
	t.Helper()
	lean, err := wstest.NewLeanPoster(base(r), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	leanClose, err := wstest.NewLeanPoster(base(r), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	own, err := grpcapi.NewOwnClient(r.GRPCAddr.String(), wstest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{}
	m := map[string]wstest.Client{
		"soap/nethttp":  soap.NewClient(&wstest.StdPoster{HC: hc, Base: base(r)}, "", wstest.Limits{}),
		"soap/lean":     soap.NewClient(lean, "", wstest.Limits{}),
		"soap/close":    soap.NewClient(leanClose, "", wstest.Limits{}),
		"json/nethttp":  jsonapi.NewClient(&wstest.StdPoster{HC: hc, Base: base(r)}, wstest.Limits{}),
		"json/lean":     jsonapi.NewClient(lean, wstest.Limits{}),
		"grpc/shared":   own,
		"grpc/per-call": grpcapi.NewPerCallClient(r.GRPCAddr.String(), wstest.Limits{}),
	}
	t.Cleanup(func() {
		for _, c := range m {
			c.Close()
		}
		hc.CloseIdleConnections()
	})
	return m
}

func TestRoundTripsEveryEncoding(t *testing.T) {
	r := start(t, wstest.Limits{})
	ctx := context.Background()
	for name, c := range clients(t, r) {
		t.Run(name, func(t *testing.T) {
			if err := c.EchoVoid(ctx); err != nil {
				t.Fatal(err)
			}
			if ex := c.Last(); ex.Status != 200 {
				t.Fatalf("EchoVoid exchange %+v", ex)
			}
			for _, n := range []int{0, 1, 20, 100, 200} {
				in := wstest.MakeStructs(n)
				out, err := c.EchoStruct(ctx, in)
				if err != nil || !wstest.EqualStructs(in, out) {
					t.Fatalf("EchoStruct-%d: %v (got %d)", n, err, len(out))
				}
				if n > 0 && c.Last().Bytes == 0 {
					t.Fatalf("EchoStruct-%d: no bytes recorded", n)
				}
				l := wstest.MakeList(n)
				lo, err := c.EchoList(ctx, l)
				if err != nil || !wstest.EqualList(l, lo) {
					t.Fatalf("EchoList-%d: %v (got %d nodes)", n, err, wstest.ListLen(lo, 1000))
				}
				s := wstest.MakeSynthetic(n * 10)
				so, err := c.EchoSynthetic(ctx, s)
				if err != nil || !wstest.EqualSynthetic(s, so) {
					t.Fatalf("EchoSynthetic-%d: %v", n, err)
				}
				o, err := c.GetOrder(ctx, int32(1000+n), int32(n), int32(n))
				if err != nil {
					t.Fatalf("GetOrder-%d: %v", n, err)
				}
				if err := wstest.CheckOrder(o, int32(1000+n), int32(n), int32(n)); err != nil {
					t.Fatalf("GetOrder-%d: %v", n, err)
				}
			}
			// a wrong echo must be noticed: the check is not vacuous
			o, _ := c.GetOrder(ctx, 1, 2, 3)
			if wstest.CheckOrder(o, 1, 2, 4) == nil || wstest.CheckOrder(o, 2, 2, 3) == nil {
				t.Fatal("CheckOrder accepted the wrong order")
			}
			// server-side refusal comes back as a RemoteError
			_, err := c.GetOrder(ctx, 1, 1, -1)
			var re *wstest.RemoteError
			if !errors.As(err, &re) {
				t.Fatalf("GetOrder(-1): %v", err)
			}
			_, err = c.EchoList(ctx, wstest.MakeList(wstest.DefaultMaxItems+1))
			if !errors.As(err, &re) || !strings.Contains(re.Message, "too many items") {
				t.Fatalf("EchoList over the cap: %v", err)
			}
		})
	}
}

func TestBadJSON(t *testing.T) {
	r := start(t, wstest.Limits{MaxBodyBytes: 1 << 16})
	deep := strings.Repeat(`{"i":1,"Next":`, 20000) + "null" + strings.Repeat("}", 20000)
	cases := []struct {
		method, op, body string
		status           int
		want             string
	}{
		{"POST", "EchoList", `{"list":`, 400, "unexpected EOF"},
		{"POST", "EchoList", `{"list":{"i":"x"}}`, 400, "cannot unmarshal"},
		{"POST", "EchoList", `{"lost":{}}`, 400, "unknown field"},
		{"POST", "EchoList", `{"list":` + deep + `}`, 413, "exceeds the limit"},
		{"POST", "EchoStruct", `{"array":[]} {}`, 400, "more than one JSON value"},
		{"POST", "EchoStruct", ``, 400, "empty body"},
		{"POST", "Frobnicate", `{}`, 404, "unknown operation"},
		{"GET", "EchoVoid", ``, 405, "not allowed"},
		{"POST", "GetOrder", `{"messageSize":-5}`, 400, "must be 0 or more"},
		{"POST", "GetOrder", `{"messageSize":999999}`, 400, "too many items"},
		{"POST", "EchoSynthetic", `{"synth":{"Barray":"!!"}}`, 400, "illegal base64"},
		{"POST", "EchoStruct", `{"array":[` + strings.Repeat(`{"i":1},`, wstest.DefaultMaxItems) + `{"i":1}]}`, 400, "too many items"},
		{"POST", "EchoVoid", ``, 200, "{}"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, base(r)+jsonapi.PathPrefix+tc.op, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s %s %.40q: %d %s, want %d containing %q", tc.method, tc.op, tc.body, resp.StatusCode, b, tc.status, tc.want)
		}
	}
	// a deep chain within the byte limit but past the item cap
	big := start(t, wstest.Limits{})
	mid := `{"list":` + strings.Repeat(`{"Next":`, wstest.DefaultMaxItems+5) + "null" + strings.Repeat("}", wstest.DefaultMaxItems+5) + `}`
	resp, err := http.Post(base(big)+jsonapi.PathPrefix+"EchoList", "application/json", strings.NewReader(mid))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "too many items") {
		t.Errorf("deep list: %d %s", resp.StatusCode, b)
	}
}

func TestGRPCHostile(t *testing.T) {
	r := start(t, wstest.Limits{})
	conn, err := grpcapi.Dial(r.GRPCAddr.String(), wstest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stub := pb.NewWSTestClient(conn)
	// a chain deeper than protobuf's recursion limit is refused while decoding
	var head *pb.TestNode
	for i := 0; i < 12000; i++ {
		head = &pb.TestNode{I: int32(i), Next: head}
	}
	_, err = stub.EchoList(context.Background(), &pb.EchoListRequest{List: head})
	if err == nil {
		t.Fatal("12,000-deep list accepted")
	}
	_, err = stub.GetOrder(context.Background(), &pb.GetOrderRequest{MessageSize: 1 << 30})
	if err == nil || !strings.Contains(err.Error(), "too many items") {
		t.Fatalf("huge message_size: %v", err)
	}
}

func TestIndexPage(t *testing.T) {
	r := start(t, wstest.Limits{})
	resp, err := http.Get(base(r) + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "/wstest/soap") {
		t.Fatal(string(b))
	} // counted under the mux's pattern; an unknown path under "other"
	resp, err = http.Get(base(r) + "/no/such/thing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for route, want := range map[string]float64{"/{$}": 1, "other": 1} {
		if n, err := r.Metrics.Sum("tradebench_requests_total", map[string]string{"route": route}); err != nil || n != want {
			t.Errorf("requests_total{route=%q} = %v (%v), want %v", route, n, err, want)
		}
	}
}
