package soap

import (
	"fmt"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// BenchmarkCodec is the SOAP work of one call without HTTP or the service: the server decoding
// the request envelope and writing the response envelope, and the client decoding that
// response.
//
//	go test -run '^$' -bench Codec ./trade/remote/soap/
func BenchmarkCodec(b *testing.B) {
	now := time.Date(2026, 11, 24, 6, 30, 0, 123456789, time.UTC)
	quote := func(i int) trade.Quote {
		return trade.Quote{Symbol: fmt.Sprintf("s:%d", i), CompanyName: fmt.Sprintf("S%d Incorporated", i),
			Price: 12345, Open: 12000, Low: 11950, High: 12400, Change: 345, Volume: 987654}
	}
	summary := trade.MarketSummary{TSIA: 1234567, OpenTSIA: 1200000, Volume: 123456789, Date: now}
	for i := range 5 {
		summary.TopGainers = append(summary.TopGainers, quote(i))
		summary.TopLosers = append(summary.TopLosers, quote(i+5))
	}
	var orders []trade.Order
	for i := range 10 {
		orders = append(orders, trade.Order{OrderID: int64(1000 + i), AccountID: 7, HoldingID: int64(500 + i), Symbol: "s:42",
			Type: trade.Buy, Status: trade.StatusClosed, OpenDate: now, CompletionDate: now, Quantity: 100, Price: 4200, Fee: 2495})
	}
	cases := []struct {
		op    string
		req   string
		write func([]byte) []byte
		read  func(c *cursor) error
	}{
		{"getQuote", "<symbol>s:1</symbol>",
			func(b []byte) []byte { return appendQuote(b, "quote", quote(1)) },
			func(c *cursor) error { _, err := readQuote(c); return err }},
		{"getMarketSummary", "",
			func(b []byte) []byte { return appendSummary(b, "marketSummary", summary) },
			func(c *cursor) error { _, err := readSummary(c); return err }},
		{"getOrders", "<userID>uid:7</userID><limit>10</limit>",
			func(b []byte) []byte {
				for _, o := range orders {
					b = appendOrder(b, "order", o)
				}
				return b
			},
			func(c *cursor) error { _, err := readOrder(c); return err }},
	}
	respond := func(b []byte, op string, write func([]byte) []byte) []byte {
		b = append(b, envStart...)
		b = append(b, "<"+op+"Response xmlns=\""+Namespace+"\">"...)
		b = write(b)
		b = append(b, "</"+op+"Response>"...)
		return append(b, envEnd...)
	}
	for _, tc := range cases {
		req := []byte(`<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="` + EnvelopeNS + `"><soap:Body><` +
			tc.op + ` xmlns="` + Namespace + `">` + tc.req + `</` + tc.op + `></soap:Body></soap:Envelope>`)
		b.Run("server/"+tc.op, func(b *testing.B) {
			b.SetBytes(int64(len(req)))
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				op, _, err := parseRequest(req)
				if err != nil || op.name != tc.op {
					b.Fatal(op, err)
				}
				out = respond(out[:0], tc.op, tc.write)
			}
		})
		resp := respond(nil, tc.op, tc.write)
		op := opByName[tc.op]
		b.Run("client/"+tc.op, func(b *testing.B) {
			b.SetBytes(int64(len(resp)))
			b.ReportAllocs()
			for b.Loop() {
				if err := parseResponse(resp, op, 200, func(c *cursor, _ int) error { return tc.read(c) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
