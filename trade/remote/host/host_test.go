package host_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
	"github.com/tradebench/tradebench/trade/remote/rest"
)

func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func TestHostServesEveryTransport(t *testing.T) {
	svc := testenv.Service(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := host.Start(ctx, svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	in := h.Info()
	if len(in.Transports) != 3 || in.HTTPAddr == "" || in.GRPCAddr == "" || !in.OrderProcess {
		t.Fatalf("Info %+v", in)
	}
	if _, err := json.Marshal(in); err != nil {
		t.Fatal(err)
	}
	if code, ct, body := get(t, in.WSDLURL); code != 200 || !strings.HasPrefix(ct, "text/xml") || !strings.Contains(body, "wsdl:definitions") {
		t.Errorf("WSDL: %d %s", code, ct)
	}
	if code, _, body := get(t, in.OpenAPIURL); code != 200 || !strings.Contains(body, `"openapi"`) {
		t.Errorf("OpenAPI: %d", code)
	}
	if code, _, body := get(t, in.RESTURL+"/quotes/s:1"); code != 200 || !strings.Contains(body, `"price":"`) {
		t.Errorf("REST quote: %d %s", code, body)
	}
	for _, p := range []string{"/", "/healthz"} {
		if code, _, _ := get(t, "http://"+in.HTTPAddr+p); code != 200 {
			t.Errorf("GET %s: %d", p, code)
		}
	}
	if code, _, _ := get(t, "http://"+in.HTTPAddr+"/nothing"); code != 404 {
		t.Errorf("GET /nothing: %d", code)
	}
	// An empty user id segment reaches the service (no path cleaning or redirect), which
	// refuses it as it does in process.
	for _, p := range []string{"/accounts/", "/accounts//holdings"} {
		code, ct, body := get(t, in.RESTURL+p)
		var pr rest.Problem
		json.Unmarshal([]byte(body), &pr)
		if code != 400 || ct != rest.ProblemContentType || pr.Code != string(trade.CodeInvalid) {
			t.Errorf("GET %s: %d %s %s", p, code, ct, body)
		}
	}
	c, err := rest.NewClient(in.HTTPAddr, rest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, gerr := c.GetHoldings(ctx, "")
	_, werr := svc.GetHoldings(ctx, "")
	if g, w := trade.AsError(gerr), trade.AsError(werr); g == nil || w == nil || *g != *w {
		t.Errorf("empty user over REST: %v, in process: %v", gerr, werr)
	}

	// Cancelling the start context stops the host.
	cancel()
	h.Close()
	if _, err := net.Dial("tcp", in.HTTPAddr); err == nil {
		t.Error("the HTTP listener is still open after Close")
	}
	if _, err := net.Dial("tcp", in.GRPCAddr); err == nil {
		t.Error("the gRPC listener is still open after Close")
	}
	if err := h.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	svc := testenv.Service(t)
	ctx := context.Background()
	if _, err := host.Start(ctx, svc, host.Config{}); err == nil {
		t.Error("Start with no listen address succeeded")
	}
	if _, err := host.Start(ctx, nil, host.Config{HTTPListen: "127.0.0.1:0"}); err == nil {
		t.Error("Start with no service succeeded")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = host.Start(ctx, svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: ln.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "gRPC listen") {
		t.Errorf("Start on a taken gRPC port: %v", err)
	}
	// Only gRPC.
	h, err := host.Start(ctx, svc, host.Config{GRPCListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if in := h.Info(); len(in.Transports) != 1 || in.Transports[0] != "grpc" || in.SOAPURL != "" {
		t.Errorf("gRPC-only Info %+v", in)
	}
	h.Close()
}
