package soap

import (
	"strings"

	"github.com/tradebench/tradebench/internal/soapxml"
)

// wsdlText is the service description: document/literal SOAP 1.1, the public WSTest contract's
// target namespace, types and element names. OPERATIONS is replaced by the operations' messages,
// port type, binding and service.
const wsdlText = `<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"
    xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:s="http://www.w3.org/2001/XMLSchema"
    xmlns:tns="uri:WSTestWeb-TestService"
    targetNamespace="uri:WSTestWeb-TestService">
  <wsdl:types>
    <s:schema elementFormDefault="qualified" targetNamespace="uri:WSTestWeb-TestService">
      <s:complexType name="TestStruct">
        <s:sequence>
          <s:element name="i" type="s:int"/>
          <s:element name="f" type="s:float" nillable="true"/>
          <s:element name="s" type="s:string" nillable="true"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="TestNode">
        <s:complexContent>
          <s:extension base="tns:TestStruct">
            <s:sequence>
              <s:element name="Next" type="tns:TestNode" minOccurs="0" maxOccurs="1"/>
            </s:sequence>
          </s:extension>
        </s:complexContent>
      </s:complexType>
      <s:complexType name="COfTestStruct">
        <s:sequence>
          <s:element name="l" type="tns:TestStruct" minOccurs="0" maxOccurs="unbounded"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="Synthetic">
        <s:sequence>
          <s:element name="Strng" type="s:string" minOccurs="0" maxOccurs="1"/>
          <s:element name="Strct" type="tns:TestStruct" minOccurs="0" maxOccurs="1"/>
          <s:element name="Barray" type="s:base64Binary" minOccurs="0" maxOccurs="1"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="Address">
        <s:sequence>
          <s:element name="FirstName" type="s:string"/>
          <s:element name="LastName" type="s:string"/>
          <s:element name="Address1" type="s:string"/>
          <s:element name="Address2" type="s:string"/>
          <s:element name="City" type="s:string"/>
          <s:element name="State" type="s:string"/>
          <s:element name="Zip" type="s:string"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="Customer">
        <s:sequence>
          <s:element name="CustomerId" type="s:int"/>
          <s:element name="ContactFirstName" type="s:string"/>
          <s:element name="ContactLastName" type="s:string"/>
          <s:element name="ContactPhone" type="s:string"/>
          <s:element name="LastActivityDate" type="s:dateTime"/>
          <s:element name="CreditCardNumber" type="s:string"/>
          <s:element name="CreditCardExpirationDate" type="s:string"/>
          <s:element name="BillingAddress" type="tns:Address"/>
          <s:element name="ShippingAddress" type="tns:Address"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="LineItem">
        <s:sequence>
          <s:element name="OrderId" type="s:int"/>
          <s:element name="ItemId" type="s:int"/>
          <s:element name="ProductId" type="s:int"/>
          <s:element name="ProductDescription" type="s:string"/>
          <s:element name="OrderQuantity" type="s:int"/>
          <s:element name="UnitPrice" type="s:float"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="COfLineItem">
        <s:sequence>
          <s:element name="LineItem" type="tns:LineItem" nillable="true" minOccurs="0" maxOccurs="unbounded"/>
        </s:sequence>
      </s:complexType>
      <s:complexType name="Order">
        <s:sequence>
          <s:element name="OrderId" type="s:int"/>
          <s:element name="OrderStatus" type="s:int"/>
          <s:element name="OrderDate" type="s:dateTime"/>
          <s:element name="OrderTotalAmount" type="s:float"/>
          <s:element name="Customer" type="tns:Customer"/>
          <s:element name="LineItems" type="tns:COfLineItem"/>
        </s:sequence>
      </s:complexType>
      <s:element name="EchoVoid"><s:complexType/></s:element>
      <s:element name="EchoVoidResponse"><s:complexType/></s:element>
      <s:element name="EchoStruct">
        <s:complexType><s:sequence><s:element name="array" type="tns:COfTestStruct" minOccurs="0" maxOccurs="1"/></s:sequence></s:complexType>
      </s:element>
      <s:element name="EchoStructResponse">
        <s:complexType><s:sequence><s:element name="EchoStructResult" type="tns:COfTestStruct" minOccurs="0" maxOccurs="1"/></s:sequence></s:complexType>
      </s:element>
      <s:element name="EchoList">
        <s:complexType><s:sequence><s:element name="list" type="tns:TestNode" minOccurs="0" maxOccurs="1"/></s:sequence></s:complexType>
      </s:element>
      <s:element name="EchoListResponse">
        <s:complexType><s:sequence><s:element name="EchoListResult" type="tns:TestNode" minOccurs="0" maxOccurs="1"/></s:sequence></s:complexType>
      </s:element>
      <s:element name="EchoSynthetic">
        <s:complexType><s:sequence><s:element name="synth" type="tns:Synthetic" minOccurs="0" maxOccurs="1"/></s:sequence></s:complexType>
      </s:element>
      <s:element name="EchoSyntheticResponse">
        <s:complexType><s:sequence><s:element name="EchoSyntheticResult" type="tns:Synthetic" minOccurs="0" maxOccurs="1"/></s:sequence></s:complexType>
      </s:element>
      <s:element name="GetOrder">
        <s:complexType><s:sequence>
          <s:element name="orderId" type="s:int"/>
          <s:element name="customerId" type="s:int"/>
          <s:element name="messageSize" type="s:int"/>
        </s:sequence></s:complexType>
      </s:element>
      <s:element name="GetOrderResponse">
        <s:complexType><s:sequence><s:element name="GetOrderResult" type="tns:Order"/></s:sequence></s:complexType>
      </s:element>
    </s:schema>
  </wsdl:types>
OPERATIONS
</wsdl:definitions>
`

// wsdl is the description, written once and cut at the endpoint address.
var wsdl = func() *soapxml.WSDL {
	ops := []string{"EchoVoid", "EchoStruct", "EchoList", "EchoSynthetic", "GetOrder"}
	var b strings.Builder
	for _, op := range ops {
		b.WriteString(`  <wsdl:message name="` + op + `SoapIn"><wsdl:part name="parameters" element="tns:` + op + `"/></wsdl:message>
  <wsdl:message name="` + op + `SoapOut"><wsdl:part name="parameters" element="tns:` + op + `Response"/></wsdl:message>
`)
	}
	b.WriteString("  <wsdl:portType name=\"TestServiceSoap\">\n")
	for _, op := range ops {
		b.WriteString(`    <wsdl:operation name="` + op + `"><wsdl:input message="tns:` + op + `SoapIn"/><wsdl:output message="tns:` + op + `SoapOut"/></wsdl:operation>
`)
	}
	b.WriteString("  </wsdl:portType>\n  <wsdl:binding name=\"TestServiceSoap\" type=\"tns:TestServiceSoap\">\n")
	b.WriteString("    <soap:binding transport=\"http://schemas.xmlsoap.org/soap/http\" style=\"document\"/>\n")
	for _, op := range ops {
		b.WriteString(`    <wsdl:operation name="` + op + `"><soap:operation soapAction="uri:WSTestWeb-TestService/` + op + `" style="document"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
`)
	}
	b.WriteString("  </wsdl:binding>\n  <wsdl:service name=\"TestService\">\n    <wsdl:port name=\"TestServiceSoap\" binding=\"tns:TestServiceSoap\">\n")
	b.WriteString("      <soap:address location=\"")
	head, tail, _ := strings.Cut(wsdlText, "OPERATIONS")
	return &soapxml.WSDL{Head: head + b.String(), Tail: "\"/>\n    </wsdl:port>\n  </wsdl:service>" + tail}
}()

// WSDL returns the service description with address as the endpoint URL.
func WSDL(address string) string { return string(wsdl.Doc(address)) }
