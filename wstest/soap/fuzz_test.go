package soap

import (
	"testing"

	"github.com/tradebench/tradebench/wstest"
)

// FuzzDecodeRequest feeds arbitrary bodies to the request parser. It must never panic, and any
// request it accepts must echo: the response it leads to must parse back to the same values.
//
//	go test -run '^$' -fuzz FuzzDecodeRequest -fuzztime 60s ./wstest/soap/
func FuzzDecodeRequest(f *testing.F) {
	for _, b := range toolkitEchoList {
		f.Add([]byte(b))
	}
	for _, tc := range badBodies {
		if len(tc.body) < 4096 {
			f.Add([]byte(tc.body))
		}
	}
	for _, m := range []Message{
		{Op: wstest.EchoVoid},
		{Op: wstest.EchoStruct, Structs: wstest.MakeStructs(3)},
		{Op: wstest.EchoList, List: wstest.MakeList(3)},
		{Op: wstest.EchoSynthetic, Synth: wstest.MakeSynthetic(16)},
		{Op: wstest.GetOrder, OrderID: 1, CustomerID: 2, Size: 2},
	} {
		f.Add(AppendRequest(nil, &m))
	}
	lim := wstest.Limits{MaxBodyBytes: 1 << 20, MaxItems: 50}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m Message
		if err := DecodeRequest(body, lim, &m); err != nil {
			return
		}
		if m.Op == wstest.GetOrder {
			if m.Size < 0 || m.Size > 50 {
				return
			}
			m.Order = wstest.BuildOrder(m.OrderID, m.CustomerID, m.Size)
		}
		out := AppendResponse(nil, &m)
		var back Message
		if err := DecodeResponse(out, lim, &back); err != nil {
			t.Fatalf("accepted request %q but its response does not parse: %v\n%s", body, err, out)
		}
		if back.Op != m.Op || !wstest.EqualStructs(m.Structs, back.Structs) && len(m.Structs)+len(back.Structs) > 0 ||
			!wstest.EqualList(m.List, back.List) || !wstest.EqualSynthetic(m.Synth, back.Synth) ||
			!wstest.EqualOrder(m.Order, back.Order) {
			t.Fatalf("echo differs for %q", body)
		}
	})
}

// FuzzDecodeResponse checks the client-side parser never panics on whatever a server sends.
func FuzzDecodeResponse(f *testing.F) {
	f.Add(AppendResponse(nil, &Message{Op: wstest.EchoList, List: wstest.MakeList(2)}))
	f.Add(AppendResponse(nil, &Message{Op: wstest.GetOrder, Order: wstest.BuildOrder(1, 2, 2)}))
	f.Add(AppendFault(nil, &Fault{Code: CodeClient, String: "x"}))
	f.Fuzz(func(t *testing.T, body []byte) {
		var m Message
		_ = DecodeResponse(body, wstest.Limits{MaxItems: 50}, &m)
	})
}
