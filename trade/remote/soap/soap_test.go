package soap

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
)

func envelope(body string) string {
	return `<?xml version="1.0"?><s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Body>` + body + `</s:Body></s:Envelope>`
}

func opXML(op, inner string) string {
	return envelope(`<` + op + ` xmlns="` + Namespace + `">` + inner + `</` + op + `>`)
}

// snapshot is the state a hostile request must not change.
type snapshot struct {
	acct     trade.Account
	holdings int
	orders   int
}

func snap(t *testing.T, svc trade.Service) snapshot {
	t.Helper()
	ctx := context.Background()
	a, err := svc.GetAccountData(ctx, testenv.User)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := svc.GetHoldings(ctx, testenv.User)
	if err != nil {
		t.Fatal(err)
	}
	os, err := svc.GetOrders(ctx, testenv.User, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{a, len(hs), len(os)}
}

// TestHostile sends malformed, unknown, mistyped and oversized requests: each gets a clean
// fault of the right code and HTTP status, and nothing in the database changes.
func TestHostile(t *testing.T) {
	svc := testenv.Service(t)
	srv := httptest.NewServer(NewHandler(svc, HandlerOptions{}))
	defer srv.Close()
	before := snap(t, svc)
	u := testenv.User
	buy := func(inner string) string { return opXML("buy", inner) }
	cases := []struct {
		name, method, ctype, body string
		status                    int
		fault                     string // expected faultcode local part; "" = no SOAP body expected
		msg                       string // substring of the faultstring
	}{
		{"empty body", "POST", "text/xml", "", 500, FaultClient, "empty document"},
		{"not XML", "POST", "text/xml", "hello there", 500, FaultClient, "text outside the root"},
		{"truncated", "POST", "text/xml", opXML("buy", "<userID>"+u+"</userID>")[:80], 500, FaultClient, ""},
		{"DTD entity bomb", "POST", "text/xml",
			`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>` + opXML("login",
				"<userID>&lol2;</userID><password>x</password>"), 500, FaultClient, "DTD"},
		{"deep nesting", "POST", "text/xml", `<s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Header>` + strings.Repeat("<a>",
			5000) + strings.Repeat("</a>", 5000) + `</s:Header><s:Body/></s:Envelope>`, 500, FaultClient, "nested deeper"},
		{"deep nesting in the body", "POST", "text/xml", envelope(strings.Repeat("<a>", 5000) + strings.Repeat("</a>", 5000)), 500, FaultClient,
			"unknown operation"},
		{"oversized", "POST", "text/xml", opXML("getQuotes", strings.Repeat("<symbol>s:1</symbol>", 20000)), 413, FaultClient, "larger than"},
		{"unknown operation", "POST", "text/xml", opXML("dropAllTables", ""), 500, FaultClient, "unknown operation"},
		{"operation in another namespace", "POST", "text/xml",
			envelope(`<buy xmlns="urn:evil"><userID>` + u + `</userID><symbol>s:1</symbol><quantity>1</quantity></buy>`),
			500, FaultClient, "unknown operation"},
		{"operation without namespace", "POST", "text/xml",
			envelope(`<buy><userID>` + u + `</userID><symbol>s:1</symbol><quantity>1</quantity></buy>`), 500, FaultClient, "unknown operation"},
		{"wrong type", "POST", "text/xml", buy("<userID>" + u + "</userID><symbol>s:1</symbol><quantity>three</quantity>"), 500, FaultClient,
			"whole number"},
		{"overflowing number", "POST", "text/xml",
			buy("<userID>" + u + "</userID><symbol>s:1</symbol><quantity>99999999999999999999999</quantity>"), 500, FaultClient, "whole number"},
		{"missing element", "POST", "text/xml", buy("<userID>" + u + "</userID><symbol>s:1</symbol>"), 500, FaultClient,
			"missing element <quantity>"},
		{"duplicate element", "POST", "text/xml",
			buy("<userID>" + u + "</userID><symbol>s:1</symbol><quantity>1</quantity><quantity>2</quantity>"), 500, FaultClient, "more than once"},
		{"unknown element", "POST", "text/xml", buy("<userID>" + u + "</userID><symbol>s:1</symbol><quantity>1</quantity><price>0.01</price>"),
			500, FaultClient, "unexpected element <price> in <buy>"},
		{"element in a simple value", "POST", "text/xml", buy("<userID><x/>" + u + "</userID><symbol>s:1</symbol><quantity>1</quantity>"), 500,
			FaultClient, "must hold text"},
		{"two operations", "POST", "text/xml",
			envelope(`<buy xmlns="` + Namespace + `"><userID>` + u + `</userID><symbol>s:1</symbol><quantity>1</quantity></buy>` +
				`<logout xmlns="` + Namespace + `"><userID>` + u + `</userID></logout>`), 500, FaultClient, "more than one element"},
		{"empty Body", "POST", "text/xml", envelope(""), 500, FaultClient, "empty soap:Body"},
		{"no Body", "POST", "text/xml", `<s:Envelope xmlns:s="` + EnvelopeNS + `"></s:Envelope>`, 500, FaultClient, "has no soap:Body"},
		{"not an envelope", "POST", "text/xml", `<buy xmlns="` + Namespace + `"/>`, 500, FaultClient, "not a SOAP envelope"},
		{"SOAP 1.2 envelope", "POST", "text/xml", `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body/></e:Envelope>`, 500,
			FaultVersionMismatch, "SOAP 1.1"},
		{"SOAP 1.2 media type", "POST", "application/soap+xml", opXML("logout", "<userID>"+u+"</userID>"), 415, FaultVersionMismatch, "SOAP 1.2"},
		{"mustUnderstand header", "POST", "text/xml",
			`<s:Envelope xmlns:s="` + EnvelopeNS + `"><s:Header><sec s:mustUnderstand="1">x</sec></s:Header>` +
				`<s:Body><logout xmlns="` + Namespace + `"><userID>` + u + `</userID></logout></s:Body></s:Envelope>`,
			500, FaultMustUnderstand, "marked mustUnderstand"},
		{"text after envelope", "POST", "text/xml", opXML("logout", "<userID>"+u+"</userID>") + "trailing", 500, FaultClient,
			"text after the root element"},
		{"element after envelope", "POST", "text/xml", opXML("logout", "<userID>"+u+"</userID>") + "<x/>", 500, FaultClient,
			"content after the root element"},
		{"processing instruction", "POST", "text/xml",
			envelope(`<?evil x?><logout xmlns="` + Namespace + `"><userID>` + u + `</userID></logout>`), 500, FaultClient, "processing instructions"},
		{"invalid UTF-8", "POST", "text/xml", opXML("logout", "<userID>\xff\xfe</userID>"), 500, FaultClient, "not valid UTF-8"},
		{"over-long field", "POST", "text/xml", opXML("logout", "<userID>"+strings.Repeat("u", maxText+10)+"</userID>"), 500, FaultClient,
			"longer than"},
		{"mismatched tags", "POST", "text/xml", envelope(`<logout xmlns="` + Namespace + `"><userID>` + u + `</user></logout>`), 500, FaultClient,
			"malformed XML"},
		{"three-place money", "POST", "text/xml", opXML("register",
			"<userID>h:1</userID><password>p</password><fullName/><address/><email/><creditCard/><openBalance>1.001</openBalance>"),
			500, FaultClient, "decimal"},
		{"dollar money", "POST", "text/xml", opXML("register",
			"<userID>h:2</userID><password>p</password><fullName/><address/><email/><creditCard/><openBalance>$1,000</openBalance>"),
			500, FaultClient, "decimal amount"},
		{"JSON body", "POST", "application/json", `{"op":"buy"}`, 415, FaultClient, "text/xml"},
		{"PUT", "PUT", "text/xml", opXML("logout", "<userID>"+u+"</userID>"), 405, FaultClient, "POST"},
		{"GET without wsdl", "GET", "", "", 405, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.fault == "" {
				return
			}
			err = parseResponse(body, opByName["logout"], resp.StatusCode, nil)
			fe, ok := err.(*FaultError)
			if !ok {
				t.Fatalf("response is not a plain SOAP fault: %v\n%s", err, body)
			}
			if fe.Code != tc.fault || !strings.Contains(fe.String, tc.msg) {
				t.Errorf("fault %s %q, want %s containing %q", fe.Code, fe.String, tc.fault, tc.msg)
			}
		})
	}
	if after := snap(t, svc); after != before {
		t.Errorf("hostile requests changed the database:\nbefore %+v\nafter  %+v", before, after)
	}
	for _, id := range []string{"h:1", "h:2"} {
		if _, err := svc.GetAccountData(context.Background(), id); !trade.AsError(err).Is(trade.ErrNotFound) {
			t.Errorf("a rejected registration created %s: %v", id, err)
		}
	}
}

// TestDomainFault: a domain error is a Client fault whose detail carries the code, and the
// client turns it back into the identical *trade.Error.
func TestDomainFault(t *testing.T) {
	svc := testenv.Service(t)
	srv := httptest.NewServer(NewHandler(svc, HandlerOptions{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL, "text/xml", strings.NewReader(opXML("getQuote", "<symbol>nope</symbol>")))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(body), "<faultcode>soap:Client</faultcode>") ||
		!strings.Contains(string(body), `<detail><TradeFault xmlns="`+Namespace+`"><code>not_found</code>`) {
		t.Fatalf("HTTP %d\n%s", resp.StatusCode, body)
	}
	c, err := NewClient(srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, gerr := c.GetQuote(context.Background(), "nope")
	_, werr := svc.GetQuote(context.Background(), "nope")
	if g, w := trade.AsError(gerr), trade.AsError(werr); g == nil || *g != *w {
		t.Fatalf("client error %#v, service error %#v", gerr, werr)
	}
}

// TestWSDL: the WSDL is well-formed XML, names every operation with its SOAPAction and the
// endpoint where it was fetched.
func TestWSDL(t *testing.T) {
	srv := httptest.NewServer(NewHandler(testenv.Service(t), HandlerOptions{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + Path + "?wsdl")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET ?wsdl: HTTP %d", resp.StatusCode)
	}
	d := xml.NewDecoder(strings.NewReader(string(body)))
	elems := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("WSDL is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "name" {
					elems[se.Name.Local+":"+a.Value]++
				}
			}
		}
	}
	for _, op := range ops {
		if elems["element:"+op.name] != 1 || elems["element:"+op.name+"Response"] != 1 || elems["operation:"+op.name] != 2 {
			t.Errorf("WSDL lacks the elements or operations of %s", op.name)
		}
		if !strings.Contains(string(body), `soapAction="`+SOAPAction(op.name)+`"`) {
			t.Errorf("WSDL lacks the SOAPAction of %s", op.name)
		}
	}
	for _, ct := range complexTypes {
		if elems["complexType:"+ct.name] != 1 {
			t.Errorf("WSDL lacks complex type %s", ct.name)
		}
	}
	if !strings.Contains(string(body), `location="`+srv.URL+Path+`"`) {
		t.Errorf("WSDL endpoint is not %s", srv.URL+Path)
	}
}

// FuzzDecode: no input makes the request or response decoder panic or misclassify; a request
// error is always the caller's fault, never the server's.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(opXML("buy", "<userID>uid:0</userID><symbol>s:1</symbol><quantity>1</quantity>")))
	f.Add([]byte(opXML("getQuotes", "<symbol>s:1</symbol><symbol>s:2</symbol>")))
	f.Add([]byte(opXML("updateAccountProfile", "<profile><userID>u</userID><fullName>f</fullName><address/><email/><creditCard/></profile>")))
	f.Add([]byte(envelope(`<getMarketSummaryResponse xmlns="` + Namespace + `">` + string(appendSummary(nil, "marketSummary",
		trade.MarketSummary{TopGainers: []trade.Quote{{Symbol: "s:1"}}})) + `</getMarketSummaryResponse>`)))
	f.Add(appendFault(nil, &soapFault{Fault: soapxml.Fault{Code: FaultClient, String: "m"}, detail: &trade.Error{Code: trade.CodeNotFound,
		Message: "x"}}))
	f.Add([]byte(`<!DOCTYPE x><x/>`))
	f.Add([]byte(strings.Repeat("<a>", 100)))
	f.Fuzz(func(t *testing.T, doc []byte) {
		op, a, err := parseRequest(doc)
		if err == nil {
			if op == nil || len(a.v) != len(op.in) {
				t.Fatalf("parsed without an operation: %+v", op)
			}
		} else if f := toFault(err); f.Code == FaultServer {
			t.Fatalf("a request decoding error classed as a server fault: %v", err)
		}
		for _, o := range []string{"getMarketSummary", "getOrders", "login"} {
			_ = parseResponse(doc, opByName[o], 200, func(c *cursor, i int) error {
				switch o {
				case "getMarketSummary":
					_, err := readSummary(c)
					return err
				case "getOrders":
					_, err := readOrder(c)
					return err
				}
				_, err := readAccount(c)
				return err
			})
		}
	})
}
