// Package wstest is the WSTest web-service benchmark (Sun's WSTest 1.0 as extended by Microsoft's
// WSTest 1.1): operations that do no business logic but echo their parameters, so a run measures a
// platform's web-service stack — transport, parsing and serialization — and nothing else.
//
// This package holds the contract shared by every encoding: the data types (named as on the SOAP
// wire), the deterministic test data, the echo checks, the limits that bound hostile input and the
// Client interface. The encodings live in soap/, jsonapi/ and grpcapi/; server/ serves them all and
// drive/ is the load workload.
package wstest

import (
	"time"

	"github.com/tradebench/tradebench/internal/money"
)

// Namespace is the target namespace of the public WSTest contract; every element is qualified.
const Namespace = "uri:WSTestWeb-TestService"

// Op is one WSTest operation.
type Op uint8

// The operations, in the order of the old kit's mix keys.
const (
	EchoVoid Op = iota
	EchoStruct
	EchoList
	EchoSynthetic
	GetOrder
	NumOps
)

var opNames = [NumOps]string{"EchoVoid", "EchoStruct", "EchoList", "EchoSynthetic", "GetOrder"}

// String is the operation's wire name ("EchoList").
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "Op(?)"
}

// ParseOp finds an operation by its wire name; case is ignored so "echolist" works on a command line.
func ParseOp(s string) (Op, bool) {
	for i, n := range opNames {
		if len(n) == len(s) && equalFold(n, s) {
			return Op(i), true
		}
	}
	return 0, false
}

func equalFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Ops lists every operation.
func Ops() []Op { return []Op{EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder} }

// Struct is the contract's TestStruct: one int, one float and one string (xs:int, xs:float,
// xs:string).
type Struct struct {
	I int32   `json:"i"`
	F float32 `json:"f"`
	S string  `json:"s"`
}

// Node is the contract's TestNode: a TestStruct with an optional Next node. Lists are walked
// iteratively everywhere, never recursively, so a long chain cannot exhaust a stack.
type Node struct {
	I    int32   `json:"i"`
	F    float32 `json:"f"`
	S    string  `json:"s"`
	Next *Node   `json:"Next,omitempty"`
}

// Synthetic is the contract's Synthetic: a string, a struct and a byte array (xs:base64Binary),
// each optional.
type Synthetic struct {
	Strng  string  `json:"Strng"`
	Strct  *Struct `json:"Strct,omitempty"`
	Barray []byte  `json:"Barray"`
}

// Order is what GetOrder returns. The contract types OrderTotalAmount and UnitPrice as xs:float;
// they are carried here as exact cents and written as plain decimals ("123.45"), which is valid
// xs:float text, so money never passes through a float.
type Order struct {
	OrderId          int32       `json:"OrderId"`
	OrderStatus      int32       `json:"OrderStatus"`
	OrderDate        time.Time   `json:"OrderDate"`
	OrderTotalAmount money.Money `json:"OrderTotalAmount"`
	Customer         Customer    `json:"Customer"`
	LineItems        []LineItem  `json:"LineItems"`
}

// Customer is the order's customer.
type Customer struct {
	CustomerId               int32     `json:"CustomerId"`
	ContactFirstName         string    `json:"ContactFirstName"`
	ContactLastName          string    `json:"ContactLastName"`
	ContactPhone             string    `json:"ContactPhone"`
	LastActivityDate         time.Time `json:"LastActivityDate"`
	CreditCardNumber         string    `json:"CreditCardNumber"`
	CreditCardExpirationDate string    `json:"CreditCardExpirationDate"`
	BillingAddress           Address   `json:"BillingAddress"`
	ShippingAddress          Address   `json:"ShippingAddress"`
}

// Address is a billing or shipping address.
type Address struct {
	FirstName string `json:"FirstName"`
	LastName  string `json:"LastName"`
	Address1  string `json:"Address1"`
	Address2  string `json:"Address2"`
	City      string `json:"City"`
	State     string `json:"State"`
	Zip       string `json:"Zip"`
}

// LineItem is one line of an order.
type LineItem struct {
	OrderId            int32       `json:"OrderId"`
	ItemId             int32       `json:"ItemId"`
	ProductId          int32       `json:"ProductId"`
	ProductDescription string      `json:"ProductDescription"`
	OrderQuantity      int32       `json:"OrderQuantity"`
	UnitPrice          money.Money `json:"UnitPrice"`
}
