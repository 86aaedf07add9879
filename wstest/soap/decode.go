package soap

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tradebench/tradebench/internal/money"
	"github.com/tradebench/tradebench/wstest"
)

// Namespaces.
const (
	NamespaceEnvelope   = "http://schemas.xmlsoap.org/soap/envelope/"
	namespaceEnvelope12 = "http://www.w3.org/2003/05/soap-envelope"
	nsXSI               = "http://www.w3.org/2001/XMLSchema-instance"
	wstestNamespace     = wstest.Namespace
)

// Fault codes (SOAP 1.1, qualified with the envelope namespace on the wire).
const (
	CodeClient          = "Client"
	CodeServer          = "Server"
	CodeVersionMismatch = "VersionMismatch"
	CodeMustUnderstand  = "MustUnderstand"
)

// Fault is a SOAP 1.1 fault: the error a server sends and a client receives.
type Fault struct {
	Code   string // Client, Server, VersionMismatch, MustUnderstand (without prefix)
	String string
}

func (f *Fault) Error() string { return "soap:" + f.Code + ": " + f.String }

func clientFault(format string, args ...any) *Fault {
	return &Fault{Code: CodeClient, String: fmt.Sprintf(format, args...)}
}

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
	s       scanner
	lim     wstest.Limits
	scratch []byte
	path    []*wstest.Node
	slab    []wstest.Node
}

func (d *decoder) reset(b []byte, lim wstest.Limits) {
	d.lim = lim
	// a list of MaxItems nodes nests MaxItems Next elements inside a few envelope levels
	d.s.reset(b, lim.MaxItems+16)
	d.path = d.path[:0]
	d.slab = nil
}

// child returns the next child element's start token, or the parent's end token. Whitespace
// between elements is skipped; other text is an error.
func (d *decoder) child(parent string, t *token) error {
	for {
		if err := d.s.next(t); err != nil {
			return err
		}
		switch t.kind {
		case tStart, tEnd:
			return nil
		case tText:
			if t.cdata || !isSpaceOnly(t.text) {
				return clientFault("unexpected text in <%s> (it holds elements)", parent)
			}
		case tEOF:
			return clientFault("document ends inside <%s>", parent)
		}
	}
}

// text reads the text content of the element whose start token was just read, up to and
// including its end tag. The result is valid until the next call.
func (d *decoder) text(el []byte) ([]byte, error) {
	if b, ok := d.s.leafText(); ok {
		return b, nil
	}
	var single []byte
	n := 0
	d.scratch = d.scratch[:0]
	var t token
	for {
		if err := d.s.next(&t); err != nil {
			return nil, err
		}
		switch t.kind {
		case tEnd:
			if n == 1 {
				return single, nil
			}
			return d.scratch, nil
		case tStart:
			return nil, clientFault("<%s> must hold text, not the element <%s>", el, clip(t.local))
		case tText:
			if n == 0 && !t.decode {
				single = t.text
				n = 1
				continue
			}
			if n == 1 {
				d.scratch = append(d.scratch, single...)
			}
			n = 2
			if t.decode {
				var err error
				d.scratch, err = decodeText(d.scratch, t.text, t.cdata)
				if err != nil {
					return nil, &SyntaxError{Offset: t.offset, Msg: err.Error()}
				}
			} else {
				d.scratch = append(d.scratch, t.text...)
			}
		}
	}
}

// skip consumes the rest of the element whose start token was just read.
func (d *decoder) skip() error {
	depth := 1
	var t token
	for depth > 0 {
		if err := d.s.next(&t); err != nil {
			return err
		}
		switch t.kind {
		case tStart:
			depth++
		case tEnd:
			depth--
		}
	}
	return nil
}

// ours reports whether a child element is in the contract's namespace. Unqualified children are
// accepted too: some hand-written clients forget elementFormDefault.
func ours(t *token) bool {
	return t.nsid <= nsOurs
}

func unexpected(t *token, parent string) error {
	if len(t.ns) > 0 && string(t.ns) != wstest.Namespace {
		return clientFault("unexpected element {%s}%s in <%s>", clip(t.ns), clip(t.local), parent)
	}
	return clientFault("unexpected element <%s> in <%s>", clip(t.local), parent)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// parseInt32 parses xs:int text.
func parseInt32(b []byte) (int32, bool) {
	b = trimSpace(b)
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
	b = trimSpace(b)
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

// str converts element text to a string, refusing invalid UTF-8 and what XML 1.0 cannot carry:
// control characters and the noncharacters U+FFFE and U+FFFF (valid UTF-8, but not XML Chars).
// It applies the encoder's rule (isXMLChar), so whatever is accepted echoes exactly; appendText
// would turn any of them into U+FFFD.
func str(b []byte, el string) (string, error) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return "", clientFault("<%s>: control character 0x%02x is not allowed in XML", el, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return "", clientFault("<%s>: text is not valid UTF-8", el)
		}
		if !isXMLChar(r) {
			return "", clientFault("<%s>: character U+%04X is not allowed in XML", el, r)
		}
		i += n
	}
	return string(b), nil
}

func (d *decoder) int32El(t *token) (int32, error) {
	b, err := d.text(t.local)
	if err != nil {
		return 0, err
	}
	v, ok := parseInt32(b)
	if !ok {
		return 0, clientFault("<%s>: %q is not an xs:int", t.local, clip(b))
	}
	return v, nil
}

func (d *decoder) float32El(t *token) (float32, error) {
	b, err := d.text(t.local)
	if err != nil {
		return 0, err
	}
	if t.nil && len(trimSpace(b)) == 0 {
		return 0, nil
	}
	v, ok := parseFloat32(b)
	if !ok {
		return 0, clientFault("<%s>: %q is not an xs:float", t.local, clip(b))
	}
	return v, nil
}

func (d *decoder) stringEl(t *token) (string, error) {
	b, err := d.text(t.local)
	if err != nil {
		return "", err
	}
	return str(b, string(t.local))
}

func (d *decoder) moneyEl(t *token) (money.Money, error) {
	b, err := d.text(t.local)
	if err != nil {
		return 0, err
	}
	m, err := money.Parse(string(trimSpace(b)))
	if err != nil {
		return 0, clientFault("<%s>: %q is not an amount with at most two decimals", t.local, clip(b))
	}
	return m, nil
}

func (d *decoder) timeEl(t *token) (time.Time, error) {
	b, err := d.text(t.local)
	if err != nil {
		return time.Time{}, err
	}
	s := string(trimSpace(b))
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if tm, err = time.Parse("2006-01-02T15:04:05.999999999", s); err != nil {
			return time.Time{}, clientFault("<%s>: %q is not an xs:dateTime", t.local, clip(b))
		}
	}
	return tm, nil
}

// structField fills one TestStruct field; it reports false for an element that is not one.
func (d *decoder) structField(t *token, i *int32, f *float32, s *string) (bool, error) {
	if !ours(t) || len(t.local) != 1 {
		return false, nil
	}
	var err error
	switch t.local[0] {
	case 'i':
		*i, err = d.int32El(t)
	case 'f':
		*f, err = d.float32El(t)
	case 's':
		*s, err = d.stringEl(t)
	default:
		return false, nil
	}
	return true, err
}

// testStruct reads a TestStruct's children up to the end of its element.
func (d *decoder) testStruct(parent string) (wstest.Struct, error) {
	var v wstest.Struct
	for {
		var t token
		err := d.child(parent, &t)
		if err != nil {
			return v, err
		}
		if t.kind == tEnd {
			return v, nil
		}
		ok, err := d.structField(&t, &v.I, &v.F, &v.S)
		if err != nil {
			return v, err
		}
		if !ok {
			return v, unexpected(&t, parent)
		}
	}
}

// structArray reads a COfTestStruct (repeated <l>) up to the end of its element.
func (d *decoder) structArray(parent string) ([]wstest.Struct, error) {
	out := make([]wstest.Struct, 0, 16)
	for {
		var t token
		err := d.child(parent, &t)
		if err != nil {
			return nil, err
		}
		if t.kind == tEnd {
			return out, nil
		}
		if !ours(&t) || string(t.local) != "l" {
			return nil, unexpected(&t, parent)
		}
		if err := d.lim.CheckItems(parent, len(out)+1); err != nil {
			return nil, clientFault("%v", err)
		}
		v, err := d.testStruct("l")
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
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
// iteratively: the path of open nodes is an explicit stack bounded by Limits.MaxItems.
func (d *decoder) list(parent string) (*wstest.Node, error) {
	head := d.newNode()
	cur := head
	count := 1
	d.path = append(d.path[:0], head)
	for {
		var t token
		err := d.child(parent, &t)
		if err != nil {
			return nil, err
		}
		if t.kind == tEnd {
			d.path = d.path[:len(d.path)-1]
			if len(d.path) == 0 {
				return head, nil
			}
			cur = d.path[len(d.path)-1]
			continue
		}
		ok, err := d.structField(&t, &cur.I, &cur.F, &cur.S)
		if err != nil {
			return nil, err
		}
		if ok {
			continue
		}
		if !ours(&t) || string(t.local) != "Next" {
			return nil, unexpected(&t, parent)
		}
		if cur.Next != nil {
			return nil, clientFault("a list node has two <Next> elements")
		}
		if t.nil {
			if err := d.skip(); err != nil {
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

func (d *decoder) base64El(t *token) ([]byte, error) {
	b, err := d.text(t.local)
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
		return nil, clientFault("<%s>: not valid base64: %v", t.local, err)
	}
	return out[:n], nil
}

func (d *decoder) synthetic(parent string) (*wstest.Synthetic, error) {
	v := &wstest.Synthetic{}
	for {
		var t token
		err := d.child(parent, &t)
		if err != nil {
			return nil, err
		}
		if t.kind == tEnd {
			return v, nil
		}
		if !ours(&t) {
			return nil, unexpected(&t, parent)
		}
		switch string(t.local) {
		case "Strng":
			v.Strng, err = d.stringEl(&t)
		case "Strct":
			if t.nil {
				err = d.skip()
				break
			}
			var st wstest.Struct
			st, err = d.testStruct("Strct")
			v.Strct = &st
		case "Barray":
			v.Barray, err = d.base64El(&t)
		default:
			return nil, unexpected(&t, parent)
		}
		if err != nil {
			return nil, err
		}
	}
}

func (d *decoder) getOrderArgs(m *Message) error {
	for {
		var t token
		err := d.child("GetOrder", &t)
		if err != nil {
			return err
		}
		if t.kind == tEnd {
			return nil
		}
		if !ours(&t) {
			return unexpected(&t, "GetOrder")
		}
		switch string(t.local) {
		case "orderId":
			m.OrderID, err = d.int32El(&t)
		case "customerId":
			m.CustomerID, err = d.int32El(&t)
		case "messageSize":
			m.Size, err = d.int32El(&t)
		default:
			return unexpected(&t, "GetOrder")
		}
		if err != nil {
			return err
		}
	}
}

func (d *decoder) address(parent string) (wstest.Address, error) {
	var a wstest.Address
	for {
		var t token
		err := d.child(parent, &t)
		if err != nil {
			return a, err
		}
		if t.kind == tEnd {
			return a, nil
		}
		if !ours(&t) {
			return a, unexpected(&t, parent)
		}
		var p *string
		switch string(t.local) {
		case "FirstName":
			p = &a.FirstName
		case "LastName":
			p = &a.LastName
		case "Address1":
			p = &a.Address1
		case "Address2":
			p = &a.Address2
		case "City":
			p = &a.City
		case "State":
			p = &a.State
		case "Zip":
			p = &a.Zip
		default:
			return a, unexpected(&t, parent)
		}
		if *p, err = d.stringEl(&t); err != nil {
			return a, err
		}
	}
}

func (d *decoder) customer(c *wstest.Customer) error {
	for {
		var t token
		err := d.child("Customer", &t)
		if err != nil {
			return err
		}
		if t.kind == tEnd {
			return nil
		}
		if !ours(&t) {
			return unexpected(&t, "Customer")
		}
		switch string(t.local) {
		case "CustomerId":
			c.CustomerId, err = d.int32El(&t)
		case "ContactFirstName":
			c.ContactFirstName, err = d.stringEl(&t)
		case "ContactLastName":
			c.ContactLastName, err = d.stringEl(&t)
		case "ContactPhone":
			c.ContactPhone, err = d.stringEl(&t)
		case "LastActivityDate":
			c.LastActivityDate, err = d.timeEl(&t)
		case "CreditCardNumber":
			c.CreditCardNumber, err = d.stringEl(&t)
		case "CreditCardExpirationDate":
			c.CreditCardExpirationDate, err = d.stringEl(&t)
		case "BillingAddress":
			c.BillingAddress, err = d.address("BillingAddress")
		case "ShippingAddress":
			c.ShippingAddress, err = d.address("ShippingAddress")
		default:
			return unexpected(&t, "Customer")
		}
		if err != nil {
			return err
		}
	}
}

func (d *decoder) lineItem(li *wstest.LineItem) error {
	for {
		var t token
		err := d.child("LineItem", &t)
		if err != nil {
			return err
		}
		if t.kind == tEnd {
			return nil
		}
		if !ours(&t) {
			return unexpected(&t, "LineItem")
		}
		switch string(t.local) {
		case "OrderId":
			li.OrderId, err = d.int32El(&t)
		case "ItemId":
			li.ItemId, err = d.int32El(&t)
		case "ProductId":
			li.ProductId, err = d.int32El(&t)
		case "ProductDescription":
			li.ProductDescription, err = d.stringEl(&t)
		case "OrderQuantity":
			li.OrderQuantity, err = d.int32El(&t)
		case "UnitPrice":
			li.UnitPrice, err = d.moneyEl(&t)
		default:
			return unexpected(&t, "LineItem")
		}
		if err != nil {
			return err
		}
	}
}

func (d *decoder) order(parent string) (*wstest.Order, error) {
	o := &wstest.Order{}
	for {
		var t token
		err := d.child(parent, &t)
		if err != nil {
			return nil, err
		}
		if t.kind == tEnd {
			return o, nil
		}
		if !ours(&t) {
			return nil, unexpected(&t, parent)
		}
		switch string(t.local) {
		case "OrderId":
			o.OrderId, err = d.int32El(&t)
		case "OrderStatus":
			o.OrderStatus, err = d.int32El(&t)
		case "OrderDate":
			o.OrderDate, err = d.timeEl(&t)
		case "OrderTotalAmount":
			o.OrderTotalAmount, err = d.moneyEl(&t)
		case "Customer":
			err = d.customer(&o.Customer)
		case "LineItems":
			o.LineItems = make([]wstest.LineItem, 0, 16)
			for {
				var c token
				err := d.child("LineItems", &c)
				if err != nil {
					return nil, err
				}
				if c.kind == tEnd {
					break
				}
				if !ours(&c) || string(c.local) != "LineItem" {
					return nil, unexpected(&c, "LineItems")
				}
				if err := d.lim.CheckItems("LineItems", len(o.LineItems)+1); err != nil {
					return nil, clientFault("%v", err)
				}
				o.LineItems = append(o.LineItems, wstest.LineItem{})
				if err := d.lineItem(&o.LineItems[len(o.LineItems)-1]); err != nil {
					return nil, err
				}
			}
		default:
			return nil, unexpected(&t, parent)
		}
		if err != nil {
			return nil, err
		}
	}
}

// envelope reads <Envelope>[<Header>…]<Body><op/></Body></Envelope> and calls body for the
// Body's one child element (its start token just read; body must consume it to its end).
func (d *decoder) envelope(body func(t token) error) error {
	var t token
	if err := d.s.next(&t); err != nil {
		return err
	}
	if t.kind != tStart || string(t.local) != "Envelope" || string(t.ns) != NamespaceEnvelope {
		if string(t.local) == "Envelope" && string(t.ns) == namespaceEnvelope12 {
			return &Fault{Code: CodeVersionMismatch, String: "SOAP 1.2 envelope: this endpoint speaks SOAP 1.1 (namespace " + NamespaceEnvelope + ")"}
		}
		if string(t.local) == "Envelope" {
			return &Fault{Code: CodeVersionMismatch, String: fmt.Sprintf("Envelope in namespace %q: expected %s", clip(t.ns), NamespaceEnvelope)}
		}
		return clientFault("the document is not a SOAP envelope: root element is {%s}%s", clip(t.ns), clip(t.local))
	}
	sawBody := false
	for {
		var t token
		err := d.child("Envelope", &t)
		if err != nil {
			return err
		}
		if t.kind == tEnd {
			break
		}
		switch {
		case string(t.ns) == NamespaceEnvelope && string(t.local) == "Header" && !sawBody:
			if err := d.header(); err != nil {
				return err
			}
		case string(t.ns) == NamespaceEnvelope && string(t.local) == "Body" && !sawBody:
			sawBody = true
			if err := d.body(body); err != nil {
				return err
			}
		case sawBody && len(t.ns) > 0: // SOAP 1.1 allows qualified elements after the Body
			if err := d.skip(); err != nil {
				return err
			}
		default:
			return clientFault("unexpected element {%s}%s in soap:Envelope", clip(t.ns), clip(t.local))
		}
	}
	if !sawBody {
		return clientFault("soap:Envelope has no soap:Body")
	}
	if err := d.s.next(&t); err != nil {
		return err
	}
	if t.kind != tEOF {
		return clientFault("content after soap:Envelope")
	}
	return nil
}

// header skips header entries; one that must be understood cannot be (this service defines
// none), so it is a MustUnderstand fault as SOAP 1.1 requires.
func (d *decoder) header() error {
	for {
		var t token
		err := d.child("Header", &t)
		if err != nil {
			return err
		}
		if t.kind == tEnd {
			return nil
		}
		if t.mustUnderst {
			return &Fault{Code: CodeMustUnderstand, String: fmt.Sprintf("header {%s}%s is marked mustUnderstand and this service does not know it", clip(t.ns), clip(t.local))}
		}
		if err := d.skip(); err != nil {
			return err
		}
	}
}

func (d *decoder) body(fn func(t token) error) error {
	seen := false
	for {
		var t token
		err := d.child("Body", &t)
		if err != nil {
			return err
		}
		if t.kind == tEnd {
			if !seen {
				return clientFault("empty soap:Body: expected one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder in namespace %s", wstest.Namespace)
			}
			return nil
		}
		if seen {
			return clientFault("soap:Body holds more than one element (<%s>); send one operation per request", clip(t.local))
		}
		seen = true
		if err := fn(t); err != nil {
			return err
		}
	}
}

var requestOps = map[string]wstest.Op{
	"EchoVoid": wstest.EchoVoid, "EchoStruct": wstest.EchoStruct, "EchoList": wstest.EchoList,
	"EchoSynthetic": wstest.EchoSynthetic, "GetOrder": wstest.GetOrder,
}

// DecodeRequest parses a request envelope. Errors are *Fault (what to answer) or
// *SyntaxError (answer soap:Client).
func DecodeRequest(b []byte, lim wstest.Limits, m *Message) error {
	d := getDecoder(b, lim)
	defer putDecoder(d)
	return d.envelope(func(t token) error {
		op, ok := requestOps[string(t.local)]
		if !ok || string(t.ns) != wstest.Namespace {
			if ok {
				return clientFault("operation element <%s> is in namespace %q; it must be in %s", t.local, clip(t.ns), wstest.Namespace)
			}
			return clientFault("unknown operation {%s}%s: expected one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder in namespace %s", clip(t.ns), clip(t.local), wstest.Namespace)
		}
		m.Op = op
		name := op.String()
		switch op {
		case wstest.GetOrder:
			return d.getOrderArgs(m)
		}
		for {
			var c token
			err := d.child(name, &c)
			if err != nil {
				return err
			}
			if c.kind == tEnd {
				return nil
			}
			switch {
			case op == wstest.EchoStruct && ours(&c) && string(c.local) == "array":
				if c.nil {
					err = d.skip()
					break
				}
				m.Structs, err = d.structArray("array")
			case op == wstest.EchoList && ours(&c) && string(c.local) == "list":
				if c.nil {
					err = d.skip()
					break
				}
				m.List, err = d.list("list")
			case op == wstest.EchoSynthetic && ours(&c) && string(c.local) == "synth":
				if c.nil {
					err = d.skip()
					break
				}
				m.Synth, err = d.synthetic("synth")
			default:
				return unexpected(&c, name)
			}
			if err != nil {
				return err
			}
		}
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
	return d.envelope(func(t token) error {
		if string(t.ns) == NamespaceEnvelope && string(t.local) == "Fault" {
			return d.fault(m)
		}
		op, ok := responseOps[string(t.local)]
		if !ok || string(t.ns) != wstest.Namespace {
			return fmt.Errorf("unexpected response element {%s}%s", clip(t.ns), clip(t.local))
		}
		m.Op = op
		name := op.String() + "Response"
		result := op.String() + "Result"
		for {
			var c token
			err := d.child(name, &c)
			if err != nil {
				return err
			}
			if c.kind == tEnd {
				if op == wstest.EchoStruct && m.Structs == nil {
					m.Structs = []wstest.Struct{}
				}
				return nil
			}
			if op == wstest.EchoVoid || !ours(&c) || string(c.local) != result {
				return unexpected(&c, name)
			}
			if c.nil {
				err = d.skip()
			} else {
				switch op {
				case wstest.EchoStruct:
					m.Structs, err = d.structArray(result)
				case wstest.EchoList:
					m.List, err = d.list(result)
				case wstest.EchoSynthetic:
					m.Synth, err = d.synthetic(result)
				case wstest.GetOrder:
					m.Order, err = d.order(result)
				}
			}
			if err != nil {
				return err
			}
		}
	})
}

func (d *decoder) fault(m *Message) error {
	f := &Fault{}
	for {
		var t token
		err := d.child("Fault", &t)
		if err != nil {
			return err
		}
		if t.kind == tEnd {
			m.Fault = f
			return nil
		}
		switch string(t.local) {
		case "faultcode":
			b, err := d.text(t.local)
			if err != nil {
				return err
			}
			_, local := splitQName(trimSpace(b))
			f.Code = string(local)
		case "faultstring":
			if f.String, err = d.stringEl(&t); err != nil {
				return err
			}
		default:
			if err := d.skip(); err != nil {
				return err
			}
		}
	}
}
