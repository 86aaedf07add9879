package wstest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tradebench/tradebench/internal/money"
	"github.com/tradebench/tradebench/internal/setting"
)

// Limits bound what one request may ask of a server (and what a client accepts back), so hostile
// input costs bounded memory and time.
type Limits struct {
	// MaxBodyBytes bounds a request or response body.
	MaxBodyBytes int64
	// MaxItems bounds EchoStruct's array, EchoList's node count (so also the nesting depth of
	// Next) and GetOrder's messageSize.
	MaxItems int
}

// Default limits: far above the WSTest papers' largest message (a list of 200, an order of 100 lines),
// far below anything that hurts a server.
const (
	DefaultMaxBodyBytes = 8 << 20
	DefaultMaxItems     = 5000
)

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{MaxBodyBytes: DefaultMaxBodyBytes, MaxItems: DefaultMaxItems}
}

// OrDefault fills zero fields with the defaults.
func (l Limits) OrDefault() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxBodyBytes > MaxBodyBytes {
		l.MaxBodyBytes = MaxBodyBytes
	}
	if l.MaxItems <= 0 {
		l.MaxItems = DefaultMaxItems
	}
	return l
}

// The bounds Validate holds limits to.
const (
	MinBodyBytes = 1 << 10
	MaxBodyBytes = 1 << 30 // parsers index documents with int32
	// MaxMaxItems is the most items a limit may allow: protobuf refuses messages nested deeper
	// than 10,000, so a longer gRPC list (each node nests the next) could never arrive.
	MaxMaxItems = 9000
)

// Validate reports a limit out of its bounds as a *setting.Error naming the field; a zero field
// is the default (see OrDefault).
func (l Limits) Validate() error {
	if b := l.MaxBodyBytes; b != 0 && (b < MinBodyBytes || b > MaxBodyBytes) {
		return setting.Errorf("MaxBodyBytes", "want %d to %d bytes, got %d", MinBodyBytes, MaxBodyBytes, b)
	}
	if n := l.MaxItems; n != 0 && (n < 1 || n > MaxMaxItems) {
		return setting.Errorf("MaxItems", "want 1 to %d, got %d", MaxMaxItems, n)
	}
	return nil
}

// ErrTooMany is returned (wrapped) when a request exceeds Limits.MaxItems.
var ErrTooMany = errors.New("too many items")

// CheckItems reports whether n items (array elements, list nodes, order lines) are allowed.
func (l Limits) CheckItems(what string, n int) error {
	if n > l.MaxItems {
		return fmt.Errorf("%w: %s has more than %d items (the server's limit)", ErrTooMany, what, l.MaxItems)
	}
	return nil
}

// ListLen counts a list's nodes, stopping one past max so a cyclic or huge list costs at most
// max steps.
func ListLen(n *Node, max int) int {
	c := 0
	for ; n != nil && c <= max; n = n.Next {
		c++
	}
	return c
}

// MakeStruct is element k of the deterministic test data.
func MakeStruct(k int) Struct {
	return Struct{I: int32(k), F: float32(k)*1.5 + 0.25, S: "WSTest string " + strconv.Itoa(k)}
}

// MakeStructs returns the EchoStruct payload of n elements (the kit's ListSize).
func MakeStructs(n int) []Struct {
	s := make([]Struct, n)
	for k := range s {
		s[k] = MakeStruct(k)
	}
	return s
}

// MakeList returns the EchoList payload: a linked list of n nodes with MakeStruct's values
// (nil for n <= 0).
func MakeList(n int) *Node {
	var head *Node
	nodes := make([]Node, n) // one allocation for the whole list
	for k := n - 1; k >= 0; k-- {
		v := MakeStruct(k)
		nodes[k] = Node{I: v.I, F: v.F, S: v.S, Next: head}
		head = &nodes[k]
	}
	return head
}

// MakeSynthetic returns the EchoSynthetic payload with a byte array of numBytes (the kit's
// NumBytes, 1024 in the WSTest papers).
func MakeSynthetic(numBytes int) *Synthetic {
	b := make([]byte, numBytes)
	for k := range b {
		b[k] = byte(k*31 + 7)
	}
	st := MakeStruct(1)
	return &Synthetic{Strng: "WSTest synthetic string", Strct: &st, Barray: b}
}

// orderEpoch anchors the generated dates (the month Sun published WSTest).
var orderEpoch = time.Date(2004, time.June, 1, 9, 0, 0, 0, time.UTC)

// BuildOrder is GetOrder's result: an order with messageSize line items, every field a pure
// function of the arguments, so a client can check the answer exactly.
func BuildOrder(orderID, customerID, messageSize int32) *Order {
	if messageSize < 0 {
		messageSize = 0
	}
	o := &Order{
		OrderId:     orderID,
		OrderStatus: int32(uint32(orderID) % 4),
		OrderDate:   orderEpoch.Add(time.Duration(uint32(orderID)%100000) * time.Minute),
		Customer:    buildCustomer(customerID),
		LineItems:   make([]LineItem, messageSize),
	}
	var total money.Money
	for k := range o.LineItems {
		li := buildLineItem(orderID, customerID, k)
		total += li.UnitPrice.Times(int64(li.OrderQuantity))
		o.LineItems[k] = li
	}
	o.OrderTotalAmount = total
	return o
}

func buildLineItem(orderID, customerID int32, k int) LineItem {
	pid := int32((uint32(customerID)*31 + uint32(k)*7) % 100000)
	return LineItem{
		OrderId:            orderID,
		ItemId:             int32(k + 1),
		ProductId:          pid,
		ProductDescription: "Product " + strconv.Itoa(int(pid)) + " description",
		OrderQuantity:      int32(1 + k%10),
		UnitPrice:          money.Cents(int64(199 + (k*137+int(pid))%9800)),
	}
}

func buildCustomer(id int32) Customer {
	n := strconv.Itoa(int(id))
	return Customer{
		CustomerId:               id,
		ContactFirstName:         "First" + n,
		ContactLastName:          "Last" + n,
		ContactPhone:             "425-555-0100",
		LastActivityDate:         orderEpoch.Add(-time.Duration(uint32(id)%10000) * time.Hour),
		CreditCardNumber:         "4111111111111111",
		CreditCardExpirationDate: "12/2030",
		BillingAddress:           buildAddress(id, "One Microsoft Way", "Redmond", "WA", "98052"),
		ShippingAddress:          buildAddress(id, "4150 Network Circle", "Santa Clara", "CA", "95054"),
	}
}

func buildAddress(id int32, line1, city, state, zip string) Address {
	n := strconv.Itoa(int(id))
	return Address{FirstName: "First" + n, LastName: "Last" + n, Address1: line1,
		Address2: "Suite " + n, City: city, State: state, Zip: zip}
}

// floatEq compares floats by value, treating NaN as equal to NaN (an echo of NaN is correct).
func floatEq(a, b float32) bool {
	return a == b || (math.IsNaN(float64(a)) && math.IsNaN(float64(b)))
}

// EqualStructs reports whether two arrays are the same echo.
func EqualStructs(a, b []Struct) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].I != b[i].I || !floatEq(a[i].F, b[i].F) || a[i].S != b[i].S {
			return false
		}
	}
	return true
}

// EqualList reports whether two lists hold the same values in the same order (iteratively).
func EqualList(a, b *Node) bool {
	for a != nil && b != nil {
		if a.I != b.I || !floatEq(a.F, b.F) || a.S != b.S {
			return false
		}
		a, b = a.Next, b.Next
	}
	return a == nil && b == nil
}

// EqualSynthetic reports whether two synthetics are the same echo. A nil and an empty byte array
// are equal (the wire cannot tell them apart).
func EqualSynthetic(a, b *Synthetic) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Strng != b.Strng || string(a.Barray) != string(b.Barray) {
		return false
	}
	if a.Strct == nil || b.Strct == nil {
		return a.Strct == b.Strct
	}
	return a.Strct.I == b.Strct.I && floatEq(a.Strct.F, b.Strct.F) && a.Strct.S == b.Strct.S
}

// EqualOrder reports whether two orders are equal field by field (times by instant).
func EqualOrder(a, b *Order) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.OrderId != b.OrderId || a.OrderStatus != b.OrderStatus || !a.OrderDate.Equal(b.OrderDate) ||
		a.OrderTotalAmount != b.OrderTotalAmount || len(a.LineItems) != len(b.LineItems) {
		return false
	}
	ca, cb := &a.Customer, &b.Customer
	if ca.CustomerId != cb.CustomerId || ca.ContactFirstName != cb.ContactFirstName ||
		ca.ContactLastName != cb.ContactLastName || ca.ContactPhone != cb.ContactPhone ||
		!ca.LastActivityDate.Equal(cb.LastActivityDate) || ca.CreditCardNumber != cb.CreditCardNumber ||
		ca.CreditCardExpirationDate != cb.CreditCardExpirationDate ||
		ca.BillingAddress != cb.BillingAddress || ca.ShippingAddress != cb.ShippingAddress {
		return false
	}
	for i := range a.LineItems {
		if a.LineItems[i] != b.LineItems[i] {
			return false
		}
	}
	return true
}

// CheckOrder reports how o differs from the order GetOrder(orderID, customerID, messageSize) must
// return, or nil.
func CheckOrder(o *Order, orderID, customerID, messageSize int32) error {
	if o == nil {
		return errors.New("no order in the response")
	}
	if len(o.LineItems) != int(messageSize) {
		return fmt.Errorf("order has %d line items, want %d", len(o.LineItems), messageSize)
	}
	if !EqualOrder(o, BuildOrder(orderID, customerID, messageSize)) {
		return fmt.Errorf("order %d for customer %d differs from the expected order", orderID, customerID)
	}
	return nil
}
