package soap

import (
	"strings"

	"github.com/tradebench/tradebench/internal/soapxml"
)

// SOAPAction is the SOAPAction header value of an operation. The server dispatches on the Body's
// element, so the header is informative.
func SOAPAction(op string) string { return Namespace + "/" + op }

// wsdl is the description, built once from the operation and type specs and cut at the
// endpoint address.
var wsdl = buildWSDL()

// WSDL returns the service description with its endpoint at location.
func WSDL(location string) string { return string(wsdl.Doc(location)) }

// buildWSDL renders the WSDL 1.1 from the operation and type specs, so it cannot drift from
// what the server decodes.
func buildWSDL() *soapxml.WSDL {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<!-- tradebench trade business services: SOAP 1.1 document/literal wrapped.
     Money (tns:Money) is an exact decimal with at most two fraction digits, never a float.
     Absent xs:dateTime elements mean "not set". Domain errors are soap:Client faults whose
     detail holds tns:TradeFault (code: invalid_argument, not_found, unauthenticated,
     permission_denied, already_exists). -->
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"
  xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
  xmlns:xs="http://www.w3.org/2001/XMLSchema"
  xmlns:tns="` + Namespace + `"
  targetNamespace="` + Namespace + `" name="TradeService">
  <wsdl:types>
    <xs:schema targetNamespace="` + Namespace + `" elementFormDefault="qualified">
      <xs:simpleType name="Money">
        <xs:restriction base="xs:decimal"><xs:fractionDigits value="2"/></xs:restriction>
      </xs:simpleType>
      <xs:simpleType name="OrderType">
        <xs:restriction base="xs:string">
`)
	for _, v := range orderTypes {
		sb.WriteString(`          <xs:enumeration value="` + v + `"/>` + "\n")
	}
	sb.WriteString(`        </xs:restriction>
      </xs:simpleType>
      <xs:simpleType name="OrderStatus">
        <xs:restriction base="xs:string">
`)
	for _, v := range orderStatuses {
		sb.WriteString(`          <xs:enumeration value="` + v + `"/>` + "\n")
	}
	sb.WriteString("        </xs:restriction>\n      </xs:simpleType>\n")
	for _, t := range complexTypes {
		sb.WriteString(`      <xs:complexType name="` + t.name + `">` + "\n")
		soapxml.WriteSequence(&sb, t.fields, "        ")
		sb.WriteString("      </xs:complexType>\n")
	}
	for _, op := range ops {
		for _, el := range []struct {
			name string
			fs   []field
		}{{op.name, op.in}, {op.name + "Response", op.out}} {
			sb.WriteString(`      <xs:element name="` + el.name + `">` + "\n        <xs:complexType>\n")
			soapxml.WriteSequence(&sb, el.fs, "          ")
			sb.WriteString("        </xs:complexType>\n      </xs:element>\n")
		}
	}
	sb.WriteString(`      <xs:element name="TradeFault" type="tns:TradeFault"/>
    </xs:schema>
  </wsdl:types>
  <wsdl:message name="TradeFault"><wsdl:part name="fault" element="tns:TradeFault"/></wsdl:message>
`)
	for _, op := range ops {
		sb.WriteString(`  <wsdl:message name="` + op.name + `Request"><wsdl:part name="parameters" element="tns:` + op.name + `"/></wsdl:message>` + "\n")
		sb.WriteString(`  <wsdl:message name="` + op.name + `Response">` +
			`<wsdl:part name="parameters" element="tns:` + op.name + `Response"/></wsdl:message>` + "\n")
	}
	sb.WriteString(`  <wsdl:portType name="TradeServicePortType">` + "\n")
	for _, op := range ops {
		sb.WriteString(`    <wsdl:operation name="` + op.name + `">
      <wsdl:input message="tns:` + op.name + `Request"/>
      <wsdl:output message="tns:` + op.name + `Response"/>
      <wsdl:fault name="TradeFault" message="tns:TradeFault"/>
    </wsdl:operation>
`)
	}
	sb.WriteString(`  </wsdl:portType>
  <wsdl:binding name="TradeServiceSoapBinding" type="tns:TradeServicePortType">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
`)
	for _, op := range ops {
		sb.WriteString(`    <wsdl:operation name="` + op.name + `">
      <soap:operation soapAction="` + SOAPAction(op.name) + `" style="document"/>
      <wsdl:input><soap:body use="literal"/></wsdl:input>
      <wsdl:output><soap:body use="literal"/></wsdl:output>
      <wsdl:fault name="TradeFault"><soap:fault name="TradeFault" use="literal"/></wsdl:fault>
    </wsdl:operation>
`)
	}
	sb.WriteString(`  </wsdl:binding>
  <wsdl:service name="TradeService">
    <wsdl:port name="TradeServiceSoap" binding="tns:TradeServiceSoapBinding">
      <soap:address location="`)
	return &soapxml.WSDL{Head: sb.String(), Tail: `"/>
    </wsdl:port>
  </wsdl:service>
</wsdl:definitions>
`}
}
