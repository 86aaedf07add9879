package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n int
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n += n
	return n, err
}

// connWriteBuffer is net/http's buffer between a response and its connection (bufio, 4 KB):
// a response of at most this many bytes, status line and headers included, leaves the server
// in one write(2); a longer one takes two or more. On loopback each write is a TCP segment's
// work for both ends, so a page that just misses costs about as much as a second page's send.
const connWriteBuffer = 4 << 10

// TestPagesFitOneWrite: the logged-in pages of a loaded account (five orders, five holdings)
// and the quotes page of five symbols are answered in one write each. The account page carried
// a class on every number cell of its orders table and a long footer, 4,182 bytes with its
// headers, and the quotes page a class and a data attribute on its number cells, 4,578 bytes:
// two writes per page view
// (docs/benchmarks.md, "What the server's settings buy"); the forms' idempotency keys, 75 bytes each, put the quotes page
// at 4,269 again. Mutants web-orders-cells-classed (both back), web-quotes-page-fat fail it.
func TestPagesFitOneWrite(t *testing.T) {
	s := startTest(t, 200, 100)
	cookie := benchLogin(t, s.URL(), "uid:7")
	addr := strings.TrimPrefix(s.URL(), "http://")
	for _, path := range []string{
		"/daytrader/app?action=quotes&symbols=s:1,s:2,s:3,s:4,s:5",
		"/daytrader/app?action=home",
		"/daytrader/app?action=portfolio",
		"/daytrader/app?action=account",
	} {
		conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		cc := &countingConn{Conn: conn}
		io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nCookie: "+cookie+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(cc), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		conn.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Logoff") {
			t.Fatalf("%s: status %d, %v, not a logged-in page:\n%.300s", path, resp.StatusCode, err, body)
		}
		if cc.n > connWriteBuffer {
			t.Errorf("%s: %d bytes with its headers (body %d), over net/http's %d-byte write buffer: two writes per view", path, cc.n, len(body),
				connWriteBuffer)
		} else {
			t.Logf("%s: %d bytes with its headers (body %d)", path, cc.n, len(body))
		}
	}
}
