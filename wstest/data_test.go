package wstest

import (
	"testing"
)

func TestParseOp(t *testing.T) {
	for _, op := range Ops() {
		got, ok := ParseOp(op.String())
		if !ok || got != op {
			t.Fatalf("%v", op)
		}
	}
	if op, ok := ParseOp("echolist"); !ok || op != EchoList {
		t.Fatal("case-insensitive lookup")
	}
	if _, ok := ParseOp("EchoLis"); ok {
		t.Fatal("prefix accepted")
	}
}

func TestBuildersAndChecks(t *testing.T) {
	if n := ListLen(MakeList(200), 1000); n != 200 {
		t.Fatalf("list of %d", n)
	}
	if ListLen(MakeList(200), 50) != 51 {
		t.Fatal("ListLen must stop one past max")
	}
	a, b := MakeList(20), MakeList(20)
	if !EqualList(a, b) {
		t.Fatal("equal lists differ")
	}
	b.Next.Next.S = "x"
	if EqualList(a, b) || EqualList(a, MakeList(19)) {
		t.Fatal("different lists compare equal")
	}
	s := MakeStructs(20)
	s2 := MakeStructs(20)
	s2[19].F++
	if !EqualStructs(s, MakeStructs(20)) || EqualStructs(s, s2) {
		t.Fatal("EqualStructs")
	}
	y := MakeSynthetic(1024)
	y2 := MakeSynthetic(1024)
	y2.Barray[1000]++
	if len(y.Barray) != 1024 || !EqualSynthetic(y, MakeSynthetic(1024)) || EqualSynthetic(y, y2) {
		t.Fatal("EqualSynthetic")
	}
	o := BuildOrder(7, 3, 50)
	if len(o.LineItems) != 50 || o.Customer.CustomerId != 3 || o.OrderId != 7 {
		t.Fatalf("%+v", o)
	}
	var total int64
	for _, li := range o.LineItems {
		total += int64(li.UnitPrice) * int64(li.OrderQuantity)
	}
	if int64(o.OrderTotalAmount) != total {
		t.Fatal("total is not the sum of the lines")
	}
	if err := CheckOrder(o, 7, 3, 50); err != nil {
		t.Fatal(err)
	}
	o.LineItems[10].UnitPrice++
	if CheckOrder(o, 7, 3, 50) == nil {
		t.Fatal("changed order passed")
	}
	if err := (Limits{MaxItems: 10}).CheckItems("x", 11); err == nil {
		t.Fatal("CheckItems")
	}
}
