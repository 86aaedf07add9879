package soap

import (
	"encoding/base64"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/wstest"
)

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(b []byte, lim wstest.Limits) *decoder {
	d := decoderPool.Get().(*decoder)
	d.reset(b, lim.OrDefault())
	return d
}

// putDecoder returns d to the pool without what refers to the last document (see
// soapxml.Reader.Release), so a pooled decoder does not pin a request body of up to MaxBodyBytes.
func putDecoder(d *decoder) {
	d.Release()
	clear(d.path[:cap(d.path)])
	d.path = d.path[:0]
	d.slab = nil
	decoderPool.Put(d)
}

func appendFloat(b []byte, f float32) []byte {
	switch {
	case math.IsNaN(float64(f)):
		return append(b, "NaN"...)
	case math.IsInf(float64(f), 1):
		return append(b, "INF"...)
	case math.IsInf(float64(f), -1):
		return append(b, "-INF"...)
	}
	return strconv.AppendFloat(b, float64(f), 'g', -1, 32)
}

func appendTime(b []byte, t time.Time) []byte { return t.AppendFormat(b, time.RFC3339Nano) }

func elInt(b []byte, name string, v int32) []byte { return soapxml.AppendInt(b, name, int64(v)) }

func appendStructFields(b []byte, i int32, f float32, s string) []byte {
	b = append(b, "<i>"...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, "</i><f>"...)
	b = appendFloat(b, f)
	b = append(b, "</f><s>"...)
	b = soapxml.AppendText(b, s)
	return append(b, "</s>"...)
}

func appendStructs(b []byte, name string, v []wstest.Struct) []byte {
	b = soapxml.AppendStart(b, name)
	for i := range v {
		b = append(b, "<l>"...)
		b = appendStructFields(b, v[i].I, v[i].F, v[i].S)
		b = append(b, "</l>"...)
	}
	return soapxml.AppendEnd(b, name)
}

// appendList writes a list iteratively: the node's fields, then <Next> opened, ... and all the
// </Next> closes at the end. n nodes take n-1 nested Next elements.
func appendList(b []byte, name string, n *wstest.Node) []byte {
	if n == nil {
		return b
	}
	b = soapxml.AppendStart(b, name)
	depth := 0
	for ; n != nil; n = n.Next {
		if depth > 0 {
			b = append(b, "<Next>"...)
		}
		b = appendStructFields(b, n.I, n.F, n.S)
		depth++
	}
	for ; depth > 1; depth-- {
		b = append(b, "</Next>"...)
	}
	return soapxml.AppendEnd(b, name)
}

func appendSynthetic(b []byte, name string, v *wstest.Synthetic) []byte {
	if v == nil {
		return b
	}
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendString(b, "Strng", v.Strng)
	if v.Strct != nil {
		b = append(b, "<Strct>"...)
		b = appendStructFields(b, v.Strct.I, v.Strct.F, v.Strct.S)
		b = append(b, "</Strct>"...)
	}
	b = append(b, "<Barray>"...)
	b = base64.StdEncoding.AppendEncode(b, v.Barray)
	b = append(b, "</Barray>"...)
	return soapxml.AppendEnd(b, name)
}

func appendAddress(b []byte, name string, a *wstest.Address) []byte {
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendStrings(b, addressFields, a.FirstName, a.LastName, a.Address1, a.Address2, a.City, a.State, a.Zip)
	return soapxml.AppendEnd(b, name)
}

func appendOrder(b []byte, name string, o *wstest.Order) []byte {
	if o == nil {
		return b
	}
	b = soapxml.AppendStart(b, name)
	b = elInt(b, "OrderId", o.OrderId)
	b = elInt(b, "OrderStatus", o.OrderStatus)
	b = append(b, "<OrderDate>"...)
	b = appendTime(b, o.OrderDate)
	b = append(b, "</OrderDate><OrderTotalAmount>"...)
	b = soapxml.AppendCents(b, int64(o.OrderTotalAmount))
	b = append(b, "</OrderTotalAmount><Customer>"...)
	c := &o.Customer
	b = elInt(b, "CustomerId", c.CustomerId)
	b = soapxml.AppendString(b, "ContactFirstName", c.ContactFirstName)
	b = soapxml.AppendString(b, "ContactLastName", c.ContactLastName)
	b = soapxml.AppendString(b, "ContactPhone", c.ContactPhone)
	b = append(b, "<LastActivityDate>"...)
	b = appendTime(b, c.LastActivityDate)
	b = append(b, "</LastActivityDate>"...)
	b = soapxml.AppendString(b, "CreditCardNumber", c.CreditCardNumber)
	b = soapxml.AppendString(b, "CreditCardExpirationDate", c.CreditCardExpirationDate)
	b = appendAddress(b, "BillingAddress", &c.BillingAddress)
	b = appendAddress(b, "ShippingAddress", &c.ShippingAddress)
	b = append(b, "</Customer><LineItems>"...)
	for i := range o.LineItems {
		li := &o.LineItems[i]
		b = append(b, "<LineItem>"...)
		b = elInt(b, "OrderId", li.OrderId)
		b = elInt(b, "ItemId", li.ItemId)
		b = elInt(b, "ProductId", li.ProductId)
		b = soapxml.AppendString(b, "ProductDescription", li.ProductDescription)
		b = elInt(b, "OrderQuantity", li.OrderQuantity)
		b = append(b, "<UnitPrice>"...)
		b = soapxml.AppendCents(b, int64(li.UnitPrice))
		b = append(b, "</UnitPrice></LineItem>"...)
	}
	b = append(b, "</LineItems>"...)
	return soapxml.AppendEnd(b, name)
}

// AppendRequest appends m's request envelope to b.
func AppendRequest(b []byte, m *Message) []byte {
	name := m.Op.String()
	b = soapxml.AppendBodyStart(b, wstest.Namespace, name, "")
	switch m.Op {
	case wstest.EchoStruct:
		b = appendStructs(b, "array", m.Structs)
	case wstest.EchoList:
		b = appendList(b, "list", m.List)
	case wstest.EchoSynthetic:
		b = appendSynthetic(b, "synth", m.Synth)
	case wstest.GetOrder:
		b = elInt(b, "orderId", m.OrderID)
		b = elInt(b, "customerId", m.CustomerID)
		b = elInt(b, "messageSize", m.Size)
	}
	return soapxml.AppendBodyEnd(b, name, "")
}

// AppendResponse appends m's response envelope to b.
func AppendResponse(b []byte, m *Message) []byte {
	name := m.Op.String()
	b = soapxml.AppendBodyStart(b, wstest.Namespace, name, "Response")
	switch m.Op {
	case wstest.EchoStruct:
		b = appendStructs(b, "EchoStructResult", m.Structs)
	case wstest.EchoList:
		b = appendList(b, "EchoListResult", m.List)
	case wstest.EchoSynthetic:
		b = appendSynthetic(b, "EchoSyntheticResult", m.Synth)
	case wstest.GetOrder:
		b = appendOrder(b, "GetOrderResult", m.Order)
	}
	return soapxml.AppendBodyEnd(b, name, "Response")
}

// AppendFault appends a SOAP 1.1 fault envelope.
func AppendFault(b []byte, f *Fault) []byte { return soapxml.AppendFault(b, f, nil) }
