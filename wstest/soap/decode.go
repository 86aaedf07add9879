// Package soap is WSTest's SOAP 1.1 document/literal binding: the public contract's messages
// (EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder), its endpoint and WSDL, and a client
// that writes what generated .NET and JAX-RPC proxies write. The envelope, the tokenizer, the
// record loop, faults and escaping are internal/soapxml, shared with StockTrader's services host.
package soap

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/tradebench/tradebench/internal/money"
	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/wstest"
)

// Namespaces.
const (
	NamespaceEnvelope = soapxml.EnvelopeNS
)

// Fault codes (SOAP 1.1, qualified with the envelope namespace on the wire).
const (
	CodeClient          = soapxml.CodeClient
	CodeServer          = soapxml.CodeServer
	CodeVersionMismatch = soapxml.CodeVersionMismatch
	CodeMustUnderstand  = soapxml.CodeMustUnderstand
)

// Fault is a SOAP 1.1 fault: the error a server sends and a client receives.
type Fault = soapxml.Fault

// SyntaxError is malformed or refused XML.
type SyntaxError = soapxml.SyntaxError

var clientFault = soapxml.ClientFault

// Message is a decoded request or response: the operation and its one payload.
type Message struct {
	Op                        wstest.Op
	Structs                   []wstest.Struct   // EchoStruct
	List                      *wstest.Node      // EchoList
	Synth                     *wstest.Synthetic // EchoSynthetic
	Order                     *wstest.Order     // GetOrder response
	OrderID, CustomerID, Size int32             // GetOrder request
	Fault                     *Fault            // a response that is a fault
}

// decoder reads one envelope. It is reused through a pool; nodes come from a slab so a list
// costs a few allocations, not one per node.
type decoder struct {
	soapxml.Reader
	lim  wstest.Limits
	path []*wstest.Node
	slab []wstest.Node
}

func (d *decoder) reset(b []byte, lim wstest.Limits) {
	d.lim = lim
	// a list of MaxItems nodes nests MaxItems Next elements inside a few envelope levels
	d.Reset(b, wstest.Namespace, soapxml.Limits{Depth: lim.MaxItems + 16})
	d.path = d.path[:0]
	d.slab = nil
}

// The records of the contract: their fields in xs:sequence order (any order is read), each
// optional, as .NET's XmlSerializer reads them. The read functions switch on the same order.
var (
	structArray     = []soapxml.Field{{Name: "l", Optional: true, Many: true}}
	syntheticFields = []soapxml.Field{{Name: "Strng", Optional: true}, {Name: "Strct", Optional: true}, {Name: "Barray", Optional: true}}
	getOrderFields  = []soapxml.Field{{Name: "orderId", Optional: true}, {Name: "customerId", Optional: true}, {Name: "messageSize", Optional: true}}
	addressFields   = []soapxml.Field{{Name: "FirstName", Optional: true}, {Name: "LastName", Optional: true},
		{Name: "Address1", Optional: true}, {Name: "Address2", Optional: true}, {Name: "City", Optional: true},
		{Name: "State", Optional: true}, {Name: "Zip", Optional: true}}
	customerFields = []soapxml.Field{{Name: "CustomerId", Optional: true}, {Name: "ContactFirstName", Optional: true},
		{Name: "ContactLastName", Optional: true}, {Name: "ContactPhone", Optional: true}, {Name: "LastActivityDate", Optional: true},
		{Name: "CreditCardNumber", Optional: true}, {Name: "CreditCardExpirationDate", Optional: true},
		{Name: "BillingAddress", Optional: true}, {Name: "ShippingAddress", Optional: true}}
	lineItemFields = []soapxml.Field{{Name: "OrderId", Optional: true}, {Name: "ItemId", Optional: true}, {Name: "ProductId", Optional: true},
		{Name: "ProductDescription", Optional: true}, {Name: "OrderQuantity", Optional: true}, {Name: "UnitPrice", Optional: true}}
	lineItemsFields = []soapxml.Field{{Name: "LineItem", Optional: true, Many: true}}
	orderFields     = []soapxml.Field{{Name: "OrderId", Optional: true}, {Name: "OrderStatus", Optional: true}, {Name: "OrderDate", Optional: true},
		{Name: "OrderTotalAmount", Optional: true}, {Name: "Customer", Optional: true}, {Name: "LineItems", Optional: true}}
)

// parseInt32 parses xs:int text.
func parseInt32(b []byte) (int32, bool) {
	b = soapxml.TrimSpace(b)
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 11 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, false
	}
	return int32(v), true
}

// parseFloat32 parses xs:float text, including INF, -INF and NaN.
func parseFloat32(b []byte) (float32, bool) {
	b = soapxml.TrimSpace(b)
	switch string(b) {
	case "INF", "+INF":
		return float32(math.Inf(1)), true
	case "-INF":
		return float32(math.Inf(-1)), true
	case "NaN":
		return float32(math.NaN()), true
	}
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	for _, c := range b { // xs:float has no hex, underscores or words; strconv would accept them
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 32)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return float32(f), true // overflow to ±Inf, underflow to 0, as XML Schema rounds
		}
		return 0, false
	}
	return float32(f), true
}

func (d *decoder) int32El(t *soapxml.Token) (int32, error) {
	b, err := d.Text(t.Local)
	if err != nil {
		return 0, err
	}
	v, ok := parseInt32(b)
	if !ok {
		return 0, clientFault("<%s>: %q is not an xs:int", t.Local, soapxml.Clip(b))
	}
	return v, nil
}

func (d *decoder) float32El(t *soapxml.Token) (float32, error) {
	b, err := d.Text(t.Local)
	if err != nil {
		return 0, err
	}
	if t.Nil && len(soapxml.TrimSpace(b)) == 0 {
		return 0, nil
	}
	v, ok := parseFloat32(b)
	if !ok {
		return 0, clientFault("<%s>: %q is not an xs:float", t.Local, soapxml.Clip(b))
	}
	return v, nil
}

func (d *decoder) moneyEl(t *soapxml.Token) (money.Money, error) {
	b, err := d.Text(t.Local)
	if err != nil {
		return 0, err
	}
	m, err := money.Parse(string(soapxml.TrimSpace(b)))
	if err != nil {
		return 0, clientFault("<%s>: %q is not an amount with at most two decimals", t.Local, soapxml.Clip(b))
	}
	return m, nil
}

func (d *decoder) timeEl(t *soapxml.Token) (time.Time, error) {
	b, err := d.Text(t.Local)
	if err != nil {
		return time.Time{}, err
	}
	s := string(soapxml.TrimSpace(b))
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if tm, err = time.Parse("2006-01-02T15:04:05.999999999", s); err != nil {
			return time.Time{}, clientFault("<%s>: %q is not an xs:dateTime", t.Local, soapxml.Clip(b))
		}
	}
	return tm, nil
}

func (d *decoder) base64El(t *soapxml.Token) ([]byte, error) {
	b, err := d.Text(t.Local)
	if err != nil {
		return nil, err
	}
	if bytes.IndexAny(b, " \t\r\n") >= 0 { // MIME-style line breaks are allowed in base64Binary
		b = bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, b)
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(out, b)
	if err != nil {
		return nil, clientFault("<%s>: not valid base64: %v", t.Local, err)
	}
	return out[:n], nil
}

// structIndex is the field of a TestStruct (or TestNode) that t is: 0, 1, 2 for i, f, s, 3 for
// Next, else -1. The names are one letter, or Next: their length and first byte tell them apart,
// inline, on the hottest path of EchoStruct and EchoList.
func structIndex(t *soapxml.Token) int {
	if !t.Ours() {
		return -1
	}
	switch string(t.Local) {
	case "i":
		return 0
	case "f":
		return 1
	case "s":
		return 2
	case "Next":
		return 3
	}
	return -1
}

// structField fills field i of a TestStruct (see structIndex) from the element t.
func (d *decoder) structField(i int, t *soapxml.Token, iv *int32, fv *float32, sv *string) (err error) {
	switch i {
	case 0:
		*iv, err = d.int32El(t)
	case 1:
		*fv, err = d.float32El(t)
	default:
		*sv, err = d.String(t)
	}
	return err
}

// testStruct reads a TestStruct's children up to the end of its element. It is EchoStruct's
// inner loop, so it reads the fields itself rather than through Record's callback (measured:
// Record's calls cost EchoStruct-20 7 % of its CPU time); list reads TestNodes the same way.
func (d *decoder) testStruct(parent string) (v wstest.Struct, err error) {
	var t soapxml.Token
	for {
		ok, err := d.Child(parent, &t)
		if err != nil || !ok {
			return v, err
		}
		i := structIndex(&t)
		if i < 0 || i > 2 {
			return v, soapxml.Unexpected(&t, parent)
		}
		if err := d.structField(i, &t, &v.I, &v.F, &v.S); err != nil {
			return v, err
		}
	}
}

// structArray reads a COfTestStruct (repeated <l>) up to the end of its element.
func (d *decoder) structArray(parent string) ([]wstest.Struct, error) {
	out := make([]wstest.Struct, 0, 16)
	err := d.Record(parent, structArray, func(_ int, _ *soapxml.Token) error {
		if err := d.lim.CheckItems(parent, len(out)+1); err != nil {
			return clientFault("%v", err)
		}
		v, err := d.testStruct("l")
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (d *decoder) newNode() *wstest.Node {
	if len(d.slab) == cap(d.slab) {
		n := 2 * cap(d.slab)
		if n < 16 {
			n = 16
		}
		if n > 256 {
			n = 256
		}
		d.slab = make([]wstest.Node, 0, n)
	}
	d.slab = d.slab[:len(d.slab)+1]
	return &d.slab[len(d.slab)-1]
}

// list reads a TestNode (the element whose start was just read) and its whole Next chain,
// iteratively: the path of open nodes is an explicit stack bounded by Limits.MaxItems, so the
// chain is not a recursion of Records (a hostile chain would cost a stack frame per node).
func (d *decoder) list(parent string) (*wstest.Node, error) {
	head := d.newNode()
	cur := head
	count := 1
	d.path = append(d.path[:0], head)
	var t soapxml.Token
	for {
		ok, err := d.Child(parent, &t)
		if err != nil {
			return nil, err
		}
		if !ok {
			d.path = d.path[:len(d.path)-1]
			if len(d.path) == 0 {
				return head, nil
			}
			cur = d.path[len(d.path)-1]
			continue
		}
		i := structIndex(&t)
		switch {
		case i < 0:
			return nil, soapxml.Unexpected(&t, parent)
		case i < 3:
			if err := d.structField(i, &t, &cur.I, &cur.F, &cur.S); err != nil {
				return nil, err
			}
			continue
		}
		if cur.Next != nil {
			return nil, clientFault("a list node has two <Next> elements")
		}
		if t.Nil {
			if err := d.Skip(); err != nil {
				return nil, err
			}
			continue
		}
		count++
		if err := d.lim.CheckItems(parent, count); err != nil {
			return nil, clientFault("%v", err)
		}
		n := d.newNode()
		cur.Next = n
		cur = n
		d.path = append(d.path, n)
	}
}

func (d *decoder) synthetic(parent string) (*wstest.Synthetic, error) {
	v := &wstest.Synthetic{}
	err := d.Record(parent, syntheticFields, func(i int, t *soapxml.Token) (err error) {
		switch i {
		case 0:
			v.Strng, err = d.String(t)
		case 1:
			if t.Nil {
				return d.Skip()
			}
			var st wstest.Struct
			st, err = d.testStruct("Strct")
			v.Strct = &st
		case 2:
			v.Barray, err = d.base64El(t)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (d *decoder) getOrderArgs(m *Message) error {
	return d.Record("GetOrder", getOrderFields, func(i int, t *soapxml.Token) (err error) {
		switch i {
		case 0:
			m.OrderID, err = d.int32El(t)
		case 1:
			m.CustomerID, err = d.int32El(t)
		case 2:
			m.Size, err = d.int32El(t)
		}
		return err
	})
}

func (d *decoder) address(parent string) (a wstest.Address, err error) {
	fs := [...]*string{&a.FirstName, &a.LastName, &a.Address1, &a.Address2, &a.City, &a.State, &a.Zip}
	err = d.Record(parent, addressFields, func(i int, t *soapxml.Token) (err error) {
		*fs[i], err = d.String(t)
		return err
	})
	return a, err
}

func (d *decoder) customer(c *wstest.Customer) error {
	return d.Record("Customer", customerFields, func(i int, t *soapxml.Token) (err error) {
		switch i {
		case 0:
			c.CustomerId, err = d.int32El(t)
		case 1:
			c.ContactFirstName, err = d.String(t)
		case 2:
			c.ContactLastName, err = d.String(t)
		case 3:
			c.ContactPhone, err = d.String(t)
		case 4:
			c.LastActivityDate, err = d.timeEl(t)
		case 5:
			c.CreditCardNumber, err = d.String(t)
		case 6:
			c.CreditCardExpirationDate, err = d.String(t)
		case 7:
			c.BillingAddress, err = d.address("BillingAddress")
		case 8:
			c.ShippingAddress, err = d.address("ShippingAddress")
		}
		return err
	})
}

func (d *decoder) lineItem(li *wstest.LineItem) error {
	return d.Record("LineItem", lineItemFields, func(i int, t *soapxml.Token) (err error) {
		switch i {
		case 0:
			li.OrderId, err = d.int32El(t)
		case 1:
			li.ItemId, err = d.int32El(t)
		case 2:
			li.ProductId, err = d.int32El(t)
		case 3:
			li.ProductDescription, err = d.String(t)
		case 4:
			li.OrderQuantity, err = d.int32El(t)
		case 5:
			li.UnitPrice, err = d.moneyEl(t)
		}
		return err
	})
}

func (d *decoder) order(parent string) (*wstest.Order, error) {
	o := &wstest.Order{}
	err := d.Record(parent, orderFields, func(i int, t *soapxml.Token) (err error) {
		switch i {
		case 0:
			o.OrderId, err = d.int32El(t)
		case 1:
			o.OrderStatus, err = d.int32El(t)
		case 2:
			o.OrderDate, err = d.timeEl(t)
		case 3:
			o.OrderTotalAmount, err = d.moneyEl(t)
		case 4:
			err = d.customer(&o.Customer)
		case 5:
			o.LineItems = make([]wstest.LineItem, 0, 16)
			err = d.Record("LineItems", lineItemsFields, func(int, *soapxml.Token) error {
				if err := d.lim.CheckItems("LineItems", len(o.LineItems)+1); err != nil {
					return clientFault("%v", err)
				}
				o.LineItems = append(o.LineItems, wstest.LineItem{})
				return d.lineItem(&o.LineItems[len(o.LineItems)-1])
			})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

var requestOps = map[string]wstest.Op{
	"EchoVoid": wstest.EchoVoid, "EchoStruct": wstest.EchoStruct, "EchoList": wstest.EchoList,
	"EchoSynthetic": wstest.EchoSynthetic, "GetOrder": wstest.GetOrder,
}

// expectOp describes the Body's element, for the fault about an empty Body.
const expectOp = "one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder in namespace " + wstest.Namespace

// payloadFields are the one optional child of each operation's request and response element
// (EchoVoid has none; GetOrder's request has its own fields).
var (
	requestPayload = [wstest.NumOps][]soapxml.Field{
		wstest.EchoStruct:    {{Name: "array", Optional: true}},
		wstest.EchoList:      {{Name: "list", Optional: true}},
		wstest.EchoSynthetic: {{Name: "synth", Optional: true}},
	}
	responsePayload = func() (p [wstest.NumOps][]soapxml.Field) {
		for _, op := range wstest.Ops() {
			if op != wstest.EchoVoid {
				p[op] = []soapxml.Field{{Name: op.String() + "Result", Optional: true}}
			}
		}
		return
	}()
)

// payload reads the payload element of op, name (its start t just read), into m; xsi:nil is
// absent.
func (d *decoder) payload(op wstest.Op, name string, t *soapxml.Token, m *Message) (err error) {
	if t.Nil {
		return d.Skip()
	}
	switch op {
	case wstest.EchoStruct:
		m.Structs, err = d.structArray(name)
	case wstest.EchoList:
		m.List, err = d.list(name)
	case wstest.EchoSynthetic:
		m.Synth, err = d.synthetic(name)
	case wstest.GetOrder:
		m.Order, err = d.order(name)
	}
	return err
}

// DecodeRequest parses a request envelope. Errors are *Fault (what to answer) or
// *SyntaxError (answer soap:Client).
func DecodeRequest(b []byte, lim wstest.Limits, m *Message) error {
	d := getDecoder(b, lim)
	defer putDecoder(d)
	return d.Envelope(expectOp, func(t *soapxml.Token) error {
		op, ok := requestOps[string(t.Local)]
		if !ok || string(t.NS) != wstest.Namespace {
			if ok {
				return clientFault("operation element <%s> is in namespace %q; it must be in %s", t.Local, soapxml.Clip(t.NS), wstest.Namespace)
			}
			return clientFault("unknown operation {%s}%s: expected %s", soapxml.Clip(t.NS), soapxml.Clip(t.Local), expectOp)
		}
		m.Op = op
		if op == wstest.GetOrder {
			return d.getOrderArgs(m)
		}
		fs := requestPayload[op]
		return d.Record(op.String(), fs, func(i int, t *soapxml.Token) error { return d.payload(op, fs[i].Name, t, m) })
	})
}

var responseOps = map[string]wstest.Op{
	"EchoVoidResponse": wstest.EchoVoid, "EchoStructResponse": wstest.EchoStruct, "EchoListResponse": wstest.EchoList,
	"EchoSyntheticResponse": wstest.EchoSynthetic, "GetOrderResponse": wstest.GetOrder,
}

// DecodeResponse parses a response envelope: a result (m.Op and the payload) or a fault
// (m.Fault).
func DecodeResponse(b []byte, lim wstest.Limits, m *Message) error {
	d := getDecoder(b, lim)
	defer putDecoder(d)
	return d.Envelope(expectOp, func(t *soapxml.Token) (err error) {
		if t.IsFault() {
			m.Fault, err = d.ReadFault(nil)
			return err
		}
		op, ok := responseOps[string(t.Local)]
		if !ok || string(t.NS) != wstest.Namespace {
			return clientFault("unexpected response element {%s}%s", soapxml.Clip(t.NS), soapxml.Clip(t.Local))
		}
		m.Op = op
		fs := responsePayload[op]
		err = d.Record(op.String()+"Response", fs, func(i int, t *soapxml.Token) error { return d.payload(op, fs[i].Name, t, m) })
		if err == nil && op == wstest.EchoStruct && m.Structs == nil {
			m.Structs = []wstest.Struct{}
		}
		return err
	})
}
