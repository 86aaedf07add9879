package soap

import (
	"encoding/base64"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tradebench/tradebench/internal/money"
	"github.com/tradebench/tradebench/wstest"
)

var decoderPool = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(b []byte, lim wstest.Limits) *decoder {
	d := decoderPool.Get().(*decoder)
	d.reset(b, lim.OrDefault())
	return d
}

// putDecoder returns d to the pool without what refers to the last document: the document
// itself, and the namespace bindings and attributes that point into it (cleared to their
// capacity: entries past the length are stale but still reachable), so a pooled decoder does
// not pin a request body of up to MaxBodyBytes.
func putDecoder(d *decoder) {
	clear(d.path[:cap(d.path)])
	d.path = d.path[:0]
	d.slab = nil
	d.s.b = nil
	clear(d.s.ns[:cap(d.s.ns)])
	d.s.ns = d.s.ns[:0]
	clear(d.s.attrs[:cap(d.s.attrs)])
	d.s.attrs = d.s.attrs[:0]
	clear(d.s.stack)
	if cap(d.s.stack) > 1024 { // do not keep a hostile request's stack around
		d.s.stack = nil
	}
	if cap(d.scratch) > 64<<10 {
		d.scratch = nil
	}
	decoderPool.Put(d)
}

// bufPool holds request/response buffers.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) > 1<<20 { // keep pooled buffers modest; big messages are rare
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

const envStart = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>`
const envEnd = `</soap:Body></soap:Envelope>`

// escape table: 1 = must be escaped in text, 2 = control character (not allowed in XML 1.0)
var escTab = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 2
	}
	t['\t'], t['\n'] = 0, 0
	t['\r'], t['<'], t['>'], t['&'] = 1, 1, 1, 1
	return
}()

// appendText appends s escaped as element text. Characters XML 1.0 cannot carry (control
// characters, invalid UTF-8) become U+FFFD, as encoding/xml does.
func appendText(b []byte, s string) []byte {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if escTab[c] != 0 || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return append(b, s...)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			switch escTab[c] {
			case 0:
				b = append(b, c)
			case 2:
				b = append(b, "\uFFFD"...)
			default:
				switch c {
				case '<':
					b = append(b, "&lt;"...)
				case '>':
					b = append(b, "&gt;"...)
				case '&':
					b = append(b, "&amp;"...)
				case '\r':
					b = append(b, "&#xD;"...)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !isXMLChar(r) {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
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

func appendMoney(b []byte, m money.Money) []byte {
	v := int64(m)
	if v < 0 {
		b = append(b, '-')
		v = -v // Money never reaches MinInt64 in an order
	}
	b = strconv.AppendInt(b, v/100, 10)
	b = append(b, '.', byte('0'+v%100/10), byte('0'+v%10))
	return b
}

func appendTime(b []byte, t time.Time) []byte { return t.AppendFormat(b, time.RFC3339Nano) }

// el appends <name>value</name> for a value already in XML form.
func elInt(b []byte, name string, v int32) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = strconv.AppendInt(b, int64(v), 10)
	return appendClose(b, name)
}

func elStr(b []byte, name, v string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = appendText(b, v)
	return appendClose(b, name)
}

func appendOpen(b []byte, name string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	return append(b, '>')
}

func appendClose(b []byte, name string) []byte {
	b = append(b, '<', '/')
	b = append(b, name...)
	return append(b, '>')
}

func appendStructFields(b []byte, i int32, f float32, s string) []byte {
	b = append(b, "<i>"...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, "</i><f>"...)
	b = appendFloat(b, f)
	b = append(b, "</f><s>"...)
	b = appendText(b, s)
	return append(b, "</s>"...)
}

func appendStructs(b []byte, name string, v []wstest.Struct) []byte {
	b = appendOpen(b, name)
	for i := range v {
		b = append(b, "<l>"...)
		b = appendStructFields(b, v[i].I, v[i].F, v[i].S)
		b = append(b, "</l>"...)
	}
	return appendClose(b, name)
}

// appendList writes a list iteratively: the node's fields, then <Next> opened, ... and all the
// </Next> closes at the end. n nodes take n-1 nested Next elements.
func appendList(b []byte, name string, n *wstest.Node) []byte {
	if n == nil {
		return b
	}
	b = appendOpen(b, name)
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
	return appendClose(b, name)
}

func appendSynthetic(b []byte, name string, v *wstest.Synthetic) []byte {
	if v == nil {
		return b
	}
	b = appendOpen(b, name)
	b = elStr(b, "Strng", v.Strng)
	if v.Strct != nil {
		b = append(b, "<Strct>"...)
		b = appendStructFields(b, v.Strct.I, v.Strct.F, v.Strct.S)
		b = append(b, "</Strct>"...)
	}
	b = append(b, "<Barray>"...)
	b = base64.StdEncoding.AppendEncode(b, v.Barray)
	b = append(b, "</Barray>"...)
	return appendClose(b, name)
}

func appendAddress(b []byte, name string, a *wstest.Address) []byte {
	b = appendOpen(b, name)
	b = elStr(b, "FirstName", a.FirstName)
	b = elStr(b, "LastName", a.LastName)
	b = elStr(b, "Address1", a.Address1)
	b = elStr(b, "Address2", a.Address2)
	b = elStr(b, "City", a.City)
	b = elStr(b, "State", a.State)
	b = elStr(b, "Zip", a.Zip)
	return appendClose(b, name)
}

func appendOrder(b []byte, name string, o *wstest.Order) []byte {
	if o == nil {
		return b
	}
	b = appendOpen(b, name)
	b = elInt(b, "OrderId", o.OrderId)
	b = elInt(b, "OrderStatus", o.OrderStatus)
	b = append(b, "<OrderDate>"...)
	b = appendTime(b, o.OrderDate)
	b = append(b, "</OrderDate><OrderTotalAmount>"...)
	b = appendMoney(b, o.OrderTotalAmount)
	b = append(b, "</OrderTotalAmount><Customer>"...)
	c := &o.Customer
	b = elInt(b, "CustomerId", c.CustomerId)
	b = elStr(b, "ContactFirstName", c.ContactFirstName)
	b = elStr(b, "ContactLastName", c.ContactLastName)
	b = elStr(b, "ContactPhone", c.ContactPhone)
	b = append(b, "<LastActivityDate>"...)
	b = appendTime(b, c.LastActivityDate)
	b = append(b, "</LastActivityDate>"...)
	b = elStr(b, "CreditCardNumber", c.CreditCardNumber)
	b = elStr(b, "CreditCardExpirationDate", c.CreditCardExpirationDate)
	b = appendAddress(b, "BillingAddress", &c.BillingAddress)
	b = appendAddress(b, "ShippingAddress", &c.ShippingAddress)
	b = append(b, "</Customer><LineItems>"...)
	for i := range o.LineItems {
		li := &o.LineItems[i]
		b = append(b, "<LineItem>"...)
		b = elInt(b, "OrderId", li.OrderId)
		b = elInt(b, "ItemId", li.ItemId)
		b = elInt(b, "ProductId", li.ProductId)
		b = elStr(b, "ProductDescription", li.ProductDescription)
		b = elInt(b, "OrderQuantity", li.OrderQuantity)
		b = append(b, "<UnitPrice>"...)
		b = appendMoney(b, li.UnitPrice)
		b = append(b, "</UnitPrice></LineItem>"...)
	}
	b = append(b, "</LineItems>"...)
	return appendClose(b, name)
}

// opening element of an operation or response in the contract's namespace (as the default
// namespace, the way .NET and JAX-RPC write it).
func appendOpStart(b []byte, name string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	return append(b, ` xmlns="`+wstest.Namespace+`">`...)
}

// AppendRequest appends m's request envelope to b.
func AppendRequest(b []byte, m *Message) []byte {
	b = append(b, envStart...)
	name := m.Op.String()
	b = appendOpStart(b, name)
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
	b = appendClose(b, name)
	return append(b, envEnd...)
}

// AppendResponse appends m's response envelope to b.
func AppendResponse(b []byte, m *Message) []byte {
	b = append(b, envStart...)
	name := m.Op.String()
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, `Response xmlns="`+wstest.Namespace+`">`...)
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
	b = append(b, "</"...)
	b = append(b, name...)
	b = append(b, "Response>"...)
	return append(b, envEnd...)
}

// AppendFault appends a SOAP 1.1 fault envelope.
func AppendFault(b []byte, f *Fault) []byte {
	b = append(b, envStart...)
	b = append(b, "<soap:Fault><faultcode>soap:"...)
	b = append(b, f.Code...)
	b = append(b, "</faultcode>"...)
	b = elStr(b, "faultstring", f.String)
	b = append(b, "</soap:Fault>"...)
	return append(b, envEnd...)
}
