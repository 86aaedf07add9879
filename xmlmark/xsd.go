package xmlmark

// XSD is the invoice schema (the old kit's sm-inv.xsd, re-created from the XML Mark paper's outline:
// a fixed header, one or more line items, a fixed summary). The paper's outline wraps the sequence
// in complexContent, which XML Schema does not allow; this is the valid equivalent.
const XSD = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"
           xmlns:inv="` + Namespace + `"
           targetNamespace="` + Namespace + `"
           elementFormDefault="qualified">

  <xs:element name="Invoice" type="inv:InvoiceType"/>

  <xs:complexType name="InvoiceType">
    <xs:sequence>
      <xs:element name="Header" type="inv:InvoiceHeaderType"/>
      <xs:element name="LineItem" type="inv:InvoiceLineItemType" minOccurs="1" maxOccurs="unbounded"/>
      <xs:element name="Summary" type="inv:InvoiceSummaryType"/>
    </xs:sequence>
  </xs:complexType>

  <xs:simpleType name="CurrencyCodeType">
    <xs:restriction base="xs:string">
      <xs:pattern value="[A-Z]{3}"/>
    </xs:restriction>
  </xs:simpleType>

  <xs:complexType name="AmountType">
    <xs:simpleContent>
      <xs:extension base="xs:decimal">
        <xs:attribute name="Currency" type="inv:CurrencyCodeType" use="required"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>

  <xs:complexType name="QuantityType">
    <xs:simpleContent>
      <xs:extension base="xs:decimal">
        <xs:attribute name="unitCode" type="xs:token" use="required"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>

  <xs:complexType name="IdentifierType">
    <xs:simpleContent>
      <xs:extension base="xs:token">
        <xs:attribute name="schemeID" type="xs:token" use="optional"/>
      </xs:extension>
    </xs:simpleContent>
  </xs:complexType>

  <xs:complexType name="OrderReferenceType">
    <xs:sequence>
      <xs:element name="BuyersID" type="xs:token"/>
      <xs:element name="IssueDate" type="xs:date"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="AddressType">
    <xs:sequence>
      <xs:element name="StreetName" type="xs:string"/>
      <xs:element name="CityName" type="xs:string"/>
      <xs:element name="PostalZone" type="xs:token"/>
      <xs:element name="CountrySubentity" type="xs:token"/>
      <xs:element name="CountryCode" type="xs:token"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="ContactType">
    <xs:sequence>
      <xs:element name="Name" type="xs:string"/>
      <xs:element name="Telephone" type="xs:token"/>
      <xs:element name="ElectronicMail" type="xs:token"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="PartyType">
    <xs:sequence>
      <xs:element name="PartyName" type="xs:string"/>
      <xs:element name="Address" type="inv:AddressType"/>
      <xs:element name="Contact" type="inv:ContactType"/>
      <xs:element name="TaxID" type="xs:token"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="PaymentMeansType">
    <xs:sequence>
      <xs:element name="PaymentMeansCode" type="xs:token"/>
      <xs:element name="DueDate" type="xs:date"/>
      <xs:element name="PayeeFinancialAccount" type="inv:IdentifierType"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="PaymentTermsType">
    <xs:sequence>
      <xs:element name="Note" type="xs:string"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="InvoiceHeaderType">
    <xs:sequence>
      <xs:element name="InvoiceID" type="xs:token"/>
      <xs:element name="IssueDate" type="xs:date"/>
      <xs:element name="InvoiceTypeCode" type="xs:token"/>
      <xs:element name="Note" type="xs:string"/>
      <xs:element name="DocumentCurrencyCode" type="inv:CurrencyCodeType"/>
      <xs:element name="OrderReference" type="inv:OrderReferenceType"/>
      <xs:element name="BuyerParty" type="inv:PartyType"/>
      <xs:element name="SellerParty" type="inv:PartyType"/>
      <xs:element name="PaymentMeans" type="inv:PaymentMeansType"/>
      <xs:element name="PaymentTerms" type="inv:PaymentTermsType"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="ItemType">
    <xs:sequence>
      <xs:element name="SellersItemID" type="xs:token"/>
      <xs:element name="Name" type="xs:string"/>
      <xs:element name="Description" type="xs:string"/>
      <xs:element name="StandardItemID" type="inv:IdentifierType"/>
      <xs:element name="OriginCountry" type="xs:token"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="PriceType">
    <xs:sequence>
      <xs:element name="PriceAmount" type="xs:decimal"/>
      <xs:element name="BaseQuantity" type="inv:QuantityType"/>
    </xs:sequence>
    <xs:attribute name="Currency" type="inv:CurrencyCodeType" use="required"/>
  </xs:complexType>

  <xs:complexType name="TaxTotalType">
    <xs:sequence>
      <xs:element name="TaxAmount" type="inv:AmountType"/>
      <xs:element name="TaxPercent" type="xs:decimal"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="InvoiceLineItemType">
    <xs:sequence>
      <xs:element name="LineID" type="xs:positiveInteger"/>
      <xs:element name="OrderLineReference" type="xs:token"/>
      <xs:element name="InvoicedQuantity" type="inv:QuantityType"/>
      <xs:element name="LineExtensionAmount" type="inv:AmountType"/>
      <xs:element name="Item" type="inv:ItemType"/>
      <xs:element name="Price" type="inv:PriceType"/>
      <xs:element name="TaxTotal" type="inv:TaxTotalType"/>
      <xs:element name="ActualDeliveryDate" type="xs:date"/>
      <xs:element name="DeliveryCity" type="xs:string"/>
    </xs:sequence>
  </xs:complexType>

  <xs:complexType name="InvoiceSummaryType">
    <xs:sequence>
      <xs:element name="LineItemCountNumeric" type="xs:nonNegativeInteger"/>
      <xs:element name="LineExtensionTotalAmount" type="inv:AmountType"/>
      <xs:element name="TaxTotalAmount" type="inv:AmountType"/>
      <xs:element name="PayableAmount" type="inv:AmountType"/>
    </xs:sequence>
  </xs:complexType>
</xs:schema>
`
