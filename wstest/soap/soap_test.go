package soap

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/wstest"
)

const tns = wstest.Namespace

// Request bodies written the way common toolkits write them.
var toolkitEchoList = map[string]string{
	// .NET asmx / WCF basicHttpBinding proxy: default namespace on the body element
	"dotnet": `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><EchoList xmlns="uri:WSTestWeb-TestService"><list><i>1</i><f>1.5</f><s>one</s><Next><i>2</i><f>2.5</f><s>two</s></Next></list></EchoList></soap:Body></soap:Envelope>`,
	// soapUI / Axis / JAX-WS: soapenv prefix, empty Header, prefixed body elements, pretty-printed
	"soapui": `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:uri="uri:WSTestWeb-TestService">
   <soapenv:Header/>
   <soapenv:Body>
      <uri:EchoList>
         <uri:list>
            <uri:i>1</uri:i>
            <uri:f>1.5</uri:f>
            <uri:s>one</uri:s>
            <uri:Next>
               <uri:i>2</uri:i>
               <uri:f>2.5</uri:f>
               <uri:s>two</uri:s>
            </uri:Next>
         </uri:list>
      </uri:EchoList>
   </soapenv:Body>
</soapenv:Envelope>`,
	// gSOAP / Apache SOAP: SOAP-ENV prefix, tns declared on the body element, explicit empty Header
	"gsoap": `<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Header></SOAP-ENV:Header><SOAP-ENV:Body><tns:EchoList xmlns:tns="uri:WSTestWeb-TestService"><tns:list><tns:i>1</tns:i><tns:f>1.5</tns:f><tns:s>one</tns:s><tns:Next><tns:i>2</tns:i><tns:f>2.5</tns:f><tns:s>two</tns:s></tns:Next></tns:list></tns:EchoList></SOAP-ENV:Body></SOAP-ENV:Envelope>`,
	// everything in the default namespace, single quotes, a comment and a CDATA section
	"default-ns": `<Envelope xmlns='http://schemas.xmlsoap.org/soap/envelope/'><!-- hi --><Body><EchoList xmlns='uri:WSTestWeb-TestService'><list><i> 1 </i><f>1.5</f><s><![CDATA[one]]></s><Next><i>2</i><f>2.5</f><s>t&#x77;o</s><Next xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></Next></list></EchoList></Body></Envelope>`,
	// Python zeep: ns0 prefix declared on the operation, soap-env prefix
	"zeep": `<soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"><soap-env:Body><ns0:EchoList xmlns:ns0="uri:WSTestWeb-TestService"><ns0:list><ns0:i>1</ns0:i><ns0:f>1.5</ns0:f><ns0:s>one</ns0:s><ns0:Next><ns0:i>2</ns0:i><ns0:f>2.5</ns0:f><ns0:s>two</ns0:s></ns0:Next></ns0:list></ns0:EchoList></soap-env:Body></soap-env:Envelope>`,
}

func TestToolkitRequestsDecode(t *testing.T) {
	want := &wstest.Node{I: 1, F: 1.5, S: "one", Next: &wstest.Node{I: 2, F: 2.5, S: "two"}}
	for name, body := range toolkitEchoList {
		t.Run(name, func(t *testing.T) {
			var m Message
			if err := DecodeRequest([]byte(body), wstest.Limits{}, &m); err != nil {
				t.Fatal(err)
			}
			if m.Op != wstest.EchoList || !wstest.EqualList(m.List, want) {
				t.Fatalf("got op %v list %+v", m.Op, m.List)
			}
		})
	}
}

func TestRequestResponseRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 20, 100, 200} {
		msgs := []Message{
			{Op: wstest.EchoVoid},
			{Op: wstest.EchoStruct, Structs: wstest.MakeStructs(n)},
			{Op: wstest.EchoList, List: wstest.MakeList(n)},
			{Op: wstest.EchoSynthetic, Synth: wstest.MakeSynthetic(n * 10)},
			{Op: wstest.GetOrder, OrderID: int32(n), CustomerID: 7, Size: int32(n)},
		}
		for _, m := range msgs {
			t.Run(fmt.Sprintf("%v-%d", m.Op, n), func(t *testing.T) {
				req := AppendRequest(nil, &m)
				if err := xml.Unmarshal(req, new(any)); err != nil && !errors.Is(err, io.EOF) {
					t.Fatalf("request is not well-formed: %v", err)
				}
				var got Message
				if err := DecodeRequest(req, wstest.Limits{}, &got); err != nil {
					t.Fatalf("%v\n%s", err, req)
				}
				checkSame(t, &m, &got)
				if m.Op == wstest.GetOrder {
					got.Order = wstest.BuildOrder(got.OrderID, got.CustomerID, got.Size)
				}
				resp := AppendResponse(nil, &got)
				var back Message
				if err := DecodeResponse(resp, wstest.Limits{}, &back); err != nil {
					t.Fatalf("%v\n%s", err, resp)
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
}

func checkSame(t *testing.T, want, got *Message) {
	t.Helper()
	if got.Op != want.Op {
		t.Fatalf("op %v, want %v", got.Op, want.Op)
	}
	switch want.Op {
	case wstest.EchoStruct:
		if !wstest.EqualStructs(want.Structs, got.Structs) {
			t.Fatalf("structs differ: %d vs %d", len(want.Structs), len(got.Structs))
		}
	case wstest.EchoList:
		if !wstest.EqualList(want.List, got.List) {
			t.Fatal("lists differ")
		}
	case wstest.EchoSynthetic:
		if !wstest.EqualSynthetic(want.Synth, got.Synth) {
			t.Fatalf("synthetic differs: %+v vs %+v", want.Synth, got.Synth)
		}
	case wstest.GetOrder:
		if got.Order == nil && (got.OrderID != want.OrderID || got.CustomerID != want.CustomerID || got.Size != want.Size) {
			t.Fatalf("GetOrder args %d/%d/%d", got.OrderID, got.CustomerID, got.Size)
		}
	}
}

func TestTextEscapingRoundTrip(t *testing.T) {
	odd := []string{"", "a<b>&c", "quote\" apos'", "line1\r\nline2\rline3", "tab\there", "ünïcødé ✓ 𝄞", "]]>", "bad\x00ctl\x1f", "bad utf8 \xff"}
	for _, s := range odd {
		m := Message{Op: wstest.EchoStruct, Structs: []wstest.Struct{{I: -5, F: -0.125, S: s}}}
		req := AppendRequest(nil, &m)
		var got Message
		if err := DecodeRequest(req, wstest.Limits{}, &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		want = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
				return '\uFFFD'
			}
			return r
		}, want)
		if got.Structs[0].S != want {
			t.Errorf("%q came back as %q, want %q", s, got.Structs[0].S, want)
		}
	}
}

func TestSpecialFloats(t *testing.T) {
	body := `<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>-2147483648</i><f>INF</f><s/></l><l><i>+2147483647</i><f>-INF</f><s></s></l><l><i>0</i><f>NaN</f><s>x</s></l><l><i>1</i><f>1E3</f><s>x</s></l></array></EchoStruct></Body></Envelope>`
	var m Message
	if err := DecodeRequest([]byte(body), wstest.Limits{}, &m); err != nil {
		t.Fatal(err)
	}
	out := AppendResponse(nil, &m)
	var back Message
	if err := DecodeResponse(out, wstest.Limits{}, &back); err != nil {
		t.Fatal(err)
	}
	if !wstest.EqualStructs(m.Structs, back.Structs) || back.Structs[3].F != 1000 || back.Structs[0].I != -2147483648 {
		t.Fatalf("%+v\n%s", back.Structs, out)
	}
}

func env(body string) string {
	return `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` + body + `</soap:Body></soap:Envelope>`
}

func nested(n int) string {
	var b strings.Builder
	b.WriteString(`<EchoList xmlns="uri:WSTestWeb-TestService"><list><i>0</i>`)
	for i := 0; i < n; i++ {
		b.WriteString("<Next><i>1</i>")
	}
	for i := 0; i < n; i++ {
		b.WriteString("</Next>")
	}
	b.WriteString("</list></EchoList>")
	return env(b.String())
}

func manyStructs(n int) string {
	return env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array>` + strings.Repeat("<l><i>1</i><f>1</f><s>x</s></l>", n) + `</array></EchoStruct>`)
}

// hostile and malformed bodies: each must be refused with a fault naming the problem.
var badBodies = []struct {
	name, body, code, want string
}{
	{"empty", "", "Client", "empty document"},
	{"not xml", "hello", "Client", "text outside the root"},
	{"truncated", `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService">`, "Client", "document ends inside"},
	{"mismatched tag", env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"></EchoList>`), "Client", "does not match"},
	{"wrong namespace", env(`<EchoVoid xmlns="urn:something-else"/>`), "Client", "must be in uri:WSTestWeb-TestService"},
	{"unknown op", env(`<Frobnicate xmlns="uri:WSTestWeb-TestService"/>`), "Client", "unknown operation"},
	{"no namespace", env(`<EchoVoid/>`), "Client", "must be in"},
	{"empty body", env(``), "Client", "empty soap:Body"},
	{"two ops", env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/><EchoVoid xmlns="uri:WSTestWeb-TestService"/>`), "Client", "more than one"},
	{"no envelope", `<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`, "Client", "not a SOAP envelope"},
	{"soap 1.2", `<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body/></env:Envelope>`, "VersionMismatch", "SOAP 1.2"},
	{"no body", `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header/></soap:Envelope>`, "Client", "no soap:Body"},
	{"mustUnderstand", `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><x:Sec xmlns:x="urn:x" soap:mustUnderstand="1"/></soap:Header><soap:Body><EchoVoid xmlns="uri:WSTestWeb-TestService"/></soap:Body></soap:Envelope>`, "MustUnderstand", "mustUnderstand"},
	{"doctype", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>` + env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f>1</f><s>&lol2;</s></l></array></EchoStruct>`), "Client", "DOCTYPE"},
	{"external entity", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f>1</f><s>&xxe;</s></l></array></EchoStruct>`), "Client", "undefined entity"},
	{"bad char ref", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>1</i><f>1</f><s>&#0;</s></l></array></EchoStruct>`), "Client", "character reference"},
	{"undeclared prefix", env(`<x:EchoVoid/>`), "Client", "undeclared namespace prefix"},
	{"bad int", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>12x</i></l></array></EchoStruct>`), "Client", "not an xs:int"},
	{"int overflow", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><i>2147483648</i></l></array></EchoStruct>`), "Client", "not an xs:int"},
	{"bad float", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><f>0x1p3</f></l></array></EchoStruct>`), "Client", "not an xs:float"},
	{"bad base64", env(`<EchoSynthetic xmlns="uri:WSTestWeb-TestService"><synth><Barray>!!!</Barray></synth></EchoSynthetic>`), "Client", "base64"},
	{"element in leaf", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><s><b/></s></l></array></EchoStruct>`), "Client", "must hold text"},
	{"unknown child", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><z>1</z></l></array></EchoStruct>`), "Client", "unexpected element <z>"},
	{"foreign child", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l xmlns="urn:other"><i>1</i></l></array></EchoStruct>`), "Client", "unexpected element {urn:other}l"},
	{"too many structs", manyStructs(wstest.DefaultMaxItems + 1), "Client", "too many items"},
	{"deep Next chain", nested(wstest.DefaultMaxItems + 10), "Client", "too many items"},
	{"negative messageSize", env(`<GetOrder xmlns="uri:WSTestWeb-TestService"><orderId>1</orderId><customerId>1</customerId><messageSize>-1</messageSize></GetOrder>`), "Client", "messageSize"},
	{"huge messageSize", env(`<GetOrder xmlns="uri:WSTestWeb-TestService"><orderId>1</orderId><customerId>1</customerId><messageSize>2000000000</messageSize></GetOrder>`), "Client", "too many items"},
	{"xml decl later", `  <?xml version="1.0"?>` + env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`), "Client", "XML declaration"},
	{"utf16 decl", `<?xml version="1.0" encoding="UTF-16"?>` + env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`), "Client", "unsupported encoding"},
	{"trailing junk", env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`) + "<x/>", "Client", "content after the root"},
	{"unquoted attr", `<soap:Envelope xmlns:soap=http://x>`, "Client", "must be quoted"},
	{"truncated attr", `<soap:Envelope xmlns:soap= >`, "Client", "must be quoted"},
	// valid UTF-8, but not XML characters: the encoder would write U+FFFD, so the echo would differ
	{"noncharacter U+FFFE", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><s>a` + "\uFFFE" + `</s></l></array></EchoStruct>`), "Client", "character U+FFFE is not allowed"},
	{"noncharacter U+FFFF in CDATA", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><s><![CDATA[` + "\uFFFF" + `]]></s></l></array></EchoStruct>`), "Client", "character U+FFFF is not allowed"},
	{"noncharacter in a list", env(`<EchoList xmlns="uri:WSTestWeb-TestService"><list><s>x&amp;` + "\uFFFF" + `</s></list></EchoList>`), "Client", "<s>: character U+FFFF"},
	{"noncharacter in synth", env(`<EchoSynthetic xmlns="uri:WSTestWeb-TestService"><synth><Strng>` + "\uFFFE" + `</Strng></synth></EchoSynthetic>`), "Client", "<Strng>: character U+FFFE"},
	{"control char", env(`<EchoStruct xmlns="uri:WSTestWeb-TestService"><array><l><s>a` + "\x01" + `</s></l></array></EchoStruct>`), "Client", "control character"},
	{"too many attrs", env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"` + strings.Repeat(` a="1"`, 65)[0:0] + func() string {
		var b strings.Builder
		for i := 0; i < 65; i++ {
			fmt.Fprintf(&b, ` a%d="1"`, i)
		}
		return b.String()
	}() + `/>`), "Client", "attributes"},
}

func TestBadBodiesFault(t *testing.T) {
	srv := httptest.NewServer(NewHandler(wstest.Limits{}, nil))
	defer srv.Close()
	for _, tc := range badBodies {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+Path, "text/xml; charset=utf-8", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 500 {
				t.Fatalf("status %d, want 500\n%s", resp.StatusCode, body)
			}
			var m Message
			if err := DecodeResponse(body, wstest.Limits{}, &m); err != nil || m.Fault == nil {
				t.Fatalf("not a fault (%v): %s", err, body)
			}
			if m.Fault.Code != tc.code || !strings.Contains(m.Fault.String, tc.want) {
				t.Fatalf("fault %s %q, want %s containing %q", m.Fault.Code, m.Fault.String, tc.code, tc.want)
			}
		})
	}
}

func TestHTTPEdges(t *testing.T) {
	srv := httptest.NewServer(NewHandler(wstest.Limits{MaxBodyBytes: 1 << 16}, nil))
	defer srv.Close()
	fault := func(resp *http.Response) *Fault {
		t.Helper()
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var m Message
		if err := DecodeResponse(body, wstest.Limits{}, &m); err != nil || m.Fault == nil {
			t.Fatalf("not a fault (%v): %s", err, body)
		}
		return m.Fault
	}
	// GET on the POST endpoint
	resp, err := http.Get(srv.URL + Path)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 405 || resp.Header.Get("Allow") == "" {
		t.Fatalf("GET: status %d", resp.StatusCode)
	}
	if f := fault(resp); !strings.Contains(f.String, "POST") {
		t.Fatalf("GET fault %q", f.String)
	}
	// a body over the limit, with and without Content-Length
	big := manyStructs(3000)
	resp, err = http.Post(srv.URL+Path, "text/xml", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	if f := fault(resp); resp.StatusCode != 500 || !strings.Contains(f.String, "exceeds the limit") {
		t.Fatalf("big body: %d %q", resp.StatusCode, f.String)
	}
	req, _ := http.NewRequest("POST", srv.URL+Path, io.MultiReader(strings.NewReader(big))) // chunked
	req.ContentLength = -1
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if f := fault(resp); !strings.Contains(f.String, "exceeds the limit") {
		t.Fatalf("chunked big body: %q", f.String)
	}
	// wrong charset, SOAP 1.2 content type
	resp, _ = http.Post(srv.URL+Path, "text/xml; charset=iso-8859-1", strings.NewReader(env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`)))
	if f := fault(resp); !strings.Contains(f.String, "charset") {
		t.Fatalf("charset: %q", f.String)
	}
	resp, _ = http.Post(srv.URL+Path, "application/soap+xml", strings.NewReader(env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`)))
	if f := fault(resp); f.Code != CodeVersionMismatch {
		t.Fatalf("soap+xml: %+v", f)
	}
	// SOAPAction is accepted but not needed, whatever it says
	for _, action := range []string{"", `"uri:WSTestWeb-TestService/EchoVoid"`, `"something/else"`} {
		req, _ := http.NewRequest("POST", srv.URL+Path, strings.NewReader(env(`<EchoVoid xmlns="uri:WSTestWeb-TestService"/>`)))
		req.Header.Set("Content-Type", "text/xml")
		if action != "" {
			req.Header.Set("SOAPAction", action)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "<EchoVoidResponse") {
			t.Fatalf("SOAPAction %q: %d %s", action, resp.StatusCode, body)
		}
	}
}

func TestToolkitRequestsOverHTTP(t *testing.T) {
	srv := httptest.NewServer(NewHandler(wstest.Limits{}, nil))
	defer srv.Close()
	for name, body := range toolkitEchoList {
		resp, err := http.Post(srv.URL+Path, "text/xml; charset=utf-8", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m Message
		if err := DecodeResponse(b, wstest.Limits{}, &m); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v\n%s", name, resp.StatusCode, err, b)
		}
		if n := wstest.ListLen(m.List, 10); n != 2 || m.List.Next.S != "two" {
			t.Fatalf("%s: echo %+v", name, m.List)
		}
	}
}

func TestWSDL(t *testing.T) {
	srv := httptest.NewServer(NewHandler(wstest.Limits{}, nil))
	defer srv.Close()
	resp, err := http.Get(srv.URL + Path + "?wsdl")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var doc struct {
		XMLName  xml.Name `xml:"http://schemas.xmlsoap.org/wsdl/ definitions"`
		TNS      string   `xml:"targetNamespace,attr"`
		PortType struct {
			Ops []struct {
				Name string `xml:"name,attr"`
			} `xml:"http://schemas.xmlsoap.org/wsdl/ operation"`
		} `xml:"http://schemas.xmlsoap.org/wsdl/ portType"`
		Service struct {
			Port struct {
				Address struct {
					Location string `xml:"location,attr"`
				} `xml:"http://schemas.xmlsoap.org/wsdl/soap/ address"`
			} `xml:"http://schemas.xmlsoap.org/wsdl/ port"`
		} `xml:"http://schemas.xmlsoap.org/wsdl/ service"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("WSDL is not well-formed: %v", err)
	}
	if doc.TNS != tns {
		t.Fatalf("targetNamespace %q", doc.TNS)
	}
	var names []string
	for _, o := range doc.PortType.Ops {
		names = append(names, o.Name)
	}
	if got := strings.Join(names, ","); got != "EchoVoid,EchoStruct,EchoList,EchoSynthetic,GetOrder" {
		t.Fatalf("operations %s", got)
	}
	if doc.Service.Port.Address.Location != srv.URL+Path {
		t.Fatalf("address %q", doc.Service.Port.Address.Location)
	}
	// every element the schema declares must be in the document as a name
	for _, el := range []string{"EchoStructResult", "EchoListResult", "EchoSyntheticResult", "GetOrderResult", `name="Next"`, `name="synth"`, `name="array"`, `name="list"`, "messageSize", "ShippingAddress", "LineItem"} {
		if !strings.Contains(string(b), el) {
			t.Errorf("WSDL lacks %s", el)
		}
	}
}

func TestClientAgainstHandler(t *testing.T) {
	srv := httptest.NewServer(NewHandler(wstest.Limits{}, nil))
	defer srv.Close()
	ctx := context.Background()
	c := NewClient(&wstest.StdPoster{HC: srv.Client(), Base: srv.URL}, "", wstest.Limits{})
	if err := c.EchoVoid(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Last().Status != 200 || c.Last().Bytes == 0 {
		t.Fatalf("last %+v", c.Last())
	}
	_, err := c.GetOrder(ctx, 1, 1, -1)
	var re *wstest.RemoteError
	if !errors.As(err, &re) || re.Code != "soap:Client" || c.Last().Status != 500 {
		t.Fatalf("GetOrder(-1): %v", err)
	}
}
