package soap

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/trade"
)

// Namespaces of the contract.
const (
	// Namespace is the target namespace of the trade service's elements (elementFormDefault
	// qualified: every element of a message is in it).
	Namespace = "urn:tradebench:trade:v1"
	// EnvelopeNS is SOAP 1.1's envelope namespace.
	EnvelopeNS = soapxml.EnvelopeNS
)

// Decoder limits: far above any legitimate message, low enough that hostile input costs little.
const (
	maxDepth  = 32       // Envelope/Body/op/marketSummary/topGainers/quote/field is 7
	maxText   = 64 << 10 // one field's text
	maxRepeat = 10000    // children of one element (e.g. symbols, orders)
)

var limits = soapxml.Limits{Depth: maxDepth, Text: maxText, Repeat: maxRepeat}

// A cursor reads one message of the contract; see soapxml.Reader.
type cursor = soapxml.Reader

// field is one element of a record: its local name, its XSD type (for the WSDL) and occurrence.
type field = soapxml.Field

var cursorPool = sync.Pool{New: func() any { return new(cursor) }}

func getCursor(doc []byte) *cursor {
	c := cursorPool.Get().(*cursor)
	c.Reset(doc, Namespace, limits)
	return c
}

func putCursor(c *cursor) {
	c.Release()
	cursorPool.Put(c)
}

// malformed is a Client fault: the peer got the message wrong.
var malformed = soapxml.ClientFault

// ---- writing: append-based, no reflection ----

// appendMoney writes the exact decimal form with two places, e.g. -12.05.
func appendMoney(b []byte, name string, m trade.Money) []byte {
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendCents(b, int64(m))
	return soapxml.AppendEnd(b, name)
}

// appendTime writes an xs:dateTime; a zero time is omitted (the elements are minOccurs=0).
func appendTime(b []byte, name string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = soapxml.AppendStart(b, name)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return soapxml.AppendEnd(b, name)
}

// ---- value parsing (xs:long, decimal money, xs:dateTime) ----

func parseInt(name, s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, malformed("<%s> must be a whole number (xs:long), not %q", name, soapxml.Shorten(s, 40))
	}
	return v, nil
}

// parseMoney accepts an xs:decimal with at most two fraction digits, exactly.
func parseMoney(name, s string) (trade.Money, error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "$,") {
		return 0, malformed("<%s> must be a decimal amount like 1234.50, not %q", name, soapxml.Shorten(s, 40))
	}
	m, err := trade.ParseMoney(s)
	if err != nil {
		return 0, malformed("<%s>: %s", name, soapxml.Shorten(err.Error(), 100))
	}
	return m, nil
}

func parseTime(name, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// xs:dateTime may omit the zone; read it as UTC.
		if t, err = time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC); err != nil {
			return time.Time{}, malformed("<%s> must be an xs:dateTime like 2006-01-02T15:04:05Z, not %q", name, soapxml.Shorten(s, 40))
		}
	}
	return t, nil
}
