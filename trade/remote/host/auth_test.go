package host_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/grpcapi"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

const token = "test-service-token-0123456789abcdef"

// TestServiceTokenRequired: the host must not serve anyone who reaches its port — profiles
// with credit cards, password changes, buys for any account: a call without the token,
// or with a wrong one, is refused with 401 (SOAP: a fault with HTTP 401; gRPC:
// UNAUTHENTICATED) and changes nothing; with it, every transport works.
func TestServiceTokenRequired(t *testing.T) {
	svc := testenv.Service(t)
	ctx := context.Background()
	h, err := host.Start(ctx, svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	in := h.Info()
	before, err := svc.GetAccountData(ctx, testenv.User)
	if err != nil {
		t.Fatal(err)
	}

	raw := func(method, url, ctype, body, auth string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	soapBuy := `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` +
		`<buy xmlns="urn:tradebench:trade:v1"><userID>` + testenv.User + `</userID><symbol>s:1</symbol><quantity>1</quantity></buy>` +
		`</soap:Body></soap:Envelope>`
	for _, auth := range []string{"", "Bearer wrong-token-0123456789abcdef", token, "Basic " + token} {
		code, hd, body := raw("GET", in.RESTURL+"/accounts/"+testenv.User+"/profile", "", "", auth)
		if code != 401 || hd.Get("WWW-Authenticate") == "" || !strings.Contains(body, rest401) || strings.Contains(body, "creditCard") {
			t.Errorf("REST profile with Authorization %q: %d %v %s", auth, code, hd, body)
		}
		code, _, body = raw("POST", in.RESTURL+"/orders/buy", "application/json", `{"userID":"`+testenv.User+`","symbol":"s:1","quantity":1}`, auth)
		if code != 401 {
			t.Errorf("REST buy with Authorization %q: %d %s", auth, code, body)
		}
		code, _, body = raw("POST", in.SOAPURL, "text/xml", soapBuy, auth)
		if code != 401 || !strings.Contains(body, "<soap:Fault>") || !strings.Contains(body, "service token") {
			t.Errorf("SOAP buy with Authorization %q: %d %s", auth, code, body)
		}
		if code, _, _ := raw("GET", in.WSDLURL, "", "", auth); code != 401 {
			t.Errorf("WSDL with Authorization %q: %d", auth, code)
		}
	}
	if code, _, _ := raw("GET", "http://"+in.HTTPAddr+"/healthz", "", "", ""); code != 200 {
		t.Errorf("health check without the token: %d, want 200 (load balancers probe it)", code)
	}
	// gRPC without the token and with a wrong one
	for _, auth := range []svcauth.Client{{}, {Token: "wrong-token-0123456789abcdef"}} {
		c, err := grpcapi.NewClient(in.GRPCAddr, grpcapi.Options{Timeout: 5 * time.Second, Auth: auth})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Buy(ctx, testenv.User, "s:1", 1)
		if st, ok := status.FromError(err); err == nil || (ok && st.Code() != codes.Unauthenticated) ||
			(!ok && !strings.Contains(err.Error(), codes.Unauthenticated.String())) {
			t.Errorf("gRPC buy with %+v: %v, want UNAUTHENTICATED", auth, err)
		}
		c.Close()
	}
	// the remote clients without the token (every transport): refused, not a domain error
	for _, mode := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		addr := in.HTTPAddr
		if mode == remote.GRPC {
			addr = in.GRPCAddr
		}
		c, err := remote.Dial(mode, addr, remote.Options{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetAccountProfileData(ctx, testenv.User); err == nil || trade.AsError(err) != nil {
			t.Errorf("%s without the token: %v, want a refusal", mode, err)
		}
		c.Close()
	}
	after, err := svc.GetAccountData(ctx, testenv.User)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("refused calls changed the account: %+v -> %+v", before, after)
	}
	// with the token, every transport works
	for _, mode := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		addr := in.HTTPAddr
		if mode == remote.GRPC {
			addr = in.GRPCAddr
		}
		c, err := remote.Dial(mode, addr, remote.Options{Timeout: 5 * time.Second, Auth: svcauth.Client{Token: token}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Buy(ctx, testenv.User, "s:1", 1); err != nil {
			t.Errorf("%s with the token: %v", mode, err)
		}
		c.Close()
	}
}

const rest401 = `"code":"service_token"`

// TestMutualTLS: with TLS the host serves only clients that present a certificate signed by
// the CA; the remote clients with the same files (and the token) work in every transport.
func TestMutualTLS(t *testing.T) {
	files := writeTLSFiles(t)
	stls, err := files.Server()
	if err != nil {
		t.Fatal(err)
	}
	ctls, err := files.Client()
	if err != nil {
		t.Fatal(err)
	}
	svc := testenv.Service(t)
	ctx := context.Background()
	h, err := host.Start(ctx, svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", Token: token, TLS: stls})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	in := h.Info()
	if !strings.HasPrefix(in.SOAPURL, "https://") {
		t.Errorf("SOAP URL %s: want https", in.SOAPURL)
	}
	for _, mode := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		addr := in.HTTPAddr
		if mode == remote.GRPC {
			addr = in.GRPCAddr
		}
		c, err := remote.Dial(mode, addr, remote.Options{Timeout: 5 * time.Second, Auth: svcauth.Client{Token: token, TLS: ctls}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetQuote(ctx, "s:1"); err != nil {
			t.Errorf("%s over mutual TLS: %v", mode, err)
		}
		c.Close()
		// a client that trusts the CA but presents no certificate is refused
		noCert := ctls.Clone()
		noCert.Certificates = nil
		c, _ = remote.Dial(mode, addr, remote.Options{Timeout: 5 * time.Second, Auth: svcauth.Client{Token: token, TLS: noCert}})
		if _, err := c.GetQuote(ctx, "s:1"); err == nil {
			t.Errorf("%s over TLS without a client certificate: served", mode)
		}
		c.Close()
	}
	// plain HTTP to the TLS port is not served
	resp, err := http.Get("http://" + in.HTTPAddr + "/healthz")
	if err == nil {
		if resp.StatusCode == 200 {
			t.Error("plain HTTP served on the TLS port")
		}
		resp.Body.Close()
	}
}

// writeTLSFiles makes a CA and one certificate it signs (for 127.0.0.1, usable by server and
// client) in the test's directory.
func writeTLSFiles(t *testing.T) svcauth.TLSFiles {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tradebench test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "tier"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	f := svcauth.TLSFiles{Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem"), CA: filepath.Join(dir, "ca.pem")}
	write := func(p, typ string, b []byte) {
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(f.Cert, "CERTIFICATE", der)
	write(f.Key, "EC PRIVATE KEY", kb)
	write(f.CA, "CERTIFICATE", caDER)
	return f
}
