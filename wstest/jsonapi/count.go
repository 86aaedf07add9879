package jsonapi

import (
	"fmt"
	"io"

	"github.com/tradebench/tradebench/wstest"
)

// itemSlack is how many objects a request may hold besides its items: the body itself, and
// EchoSynthetic's synth and Strct.
const itemSlack = 8

// itemCounter passes a request body to the JSON decoder and fails the read as soon as the body
// holds more than max objects and array elements. The limit on items must hold before decoding:
// encoding/json materialises a whole value before a handler can count it, and an empty struct
// is 3 bytes of JSON but a 24-byte slot in a slice that grows by doubling, so a body at the byte
// limit of `{},{},...` costs ~50x its size. json.Decoder reads a whole value before it decodes
// any of it, so a refused body is never decoded; what it buffered is bounded by the limit.
//
// What is counted is what decoding allocates one of: each array element (a slice slot, even
// for a null or a mistyped element, which encoding/json skips only after growing the slice) and
// each object that is not an array element (a Node of a Next chain; a Struct in an array is
// counted as the element). Quotes and backslash escapes are tracked, so brackets and commas in
// strings are not structure. It does not validate: the decoder does that. It keeps its state
// across reads, so it is exact however the body is split.
type itemCounter struct {
	r   io.Reader
	max int
	n   int
	// open containers, innermost last: true for an array. Of two levels, at least one was
	// counted (an object, or an array element), so the stack is bounded by 2*max.
	stack []bool
	room  [16]bool // the stack's first levels, so most requests allocate none
	first bool     // an array was just opened: the next value, if any, is its first element
	str   bool     // inside a string
	esc   bool     // inside a string, after a backslash
	err   error
}

func (c *itemCounter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.stack == nil {
		c.stack = c.room[:0]
	}
	n, err := c.r.Read(p)
	if i := c.scan(p[:n]); i < n {
		// hand over only what was counted, so the decoder never holds a complete value past
		// the limit
		c.err = fmt.Errorf("%w: the body holds more than %d objects and array elements (the server's limit is %d items)", wstest.ErrTooMany, c.max, c.max-itemSlack)
		return i, c.err
	}
	return n, err
}

// scan counts the structure in b; it returns len(b), or the index of the byte that took the
// count past max.
func (c *itemCounter) scan(b []byte) int {
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if c.str {
			switch {
			case c.esc:
				c.esc = false
			case ch == '\\':
				c.esc = true
			case ch == '"':
				c.str = false
			}
			continue
		}
		switch ch {
		case ' ', '\t', '\n', '\r':
			continue
		}
		inArray := len(c.stack) > 0 && c.stack[len(c.stack)-1]
		if c.first {
			c.first = false
			if ch != ']' {
				c.n++
			}
		}
		switch ch {
		case '"':
			c.str = true
		case '{':
			if !inArray {
				c.n++
			}
			c.stack = append(c.stack, false)
		case '[':
			c.stack = append(c.stack, true)
			c.first = true
		case '}', ']':
			if len(c.stack) > 0 {
				c.stack = c.stack[:len(c.stack)-1]
			}
		case ',':
			if inArray {
				c.n++
			}
		}
		if c.n > c.max {
			return i
		}
	}
	return len(b)
}
