package httpc

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// FuzzReadResponse reads any bytes as a target's answer, the body kept or not. Beyond not
// panicking: what the client keeps stays within the request's MaxBody and its body budget
// (the kept buffer's capacity is charged, and all of it is given back by ReleaseBody), no more
// body is counted than was sent, and a response read without error re-serialises to a head
// that reads back the same (status, Location, body).
func FuzzReadResponse(f *testing.F) {
	page, err := os.ReadFile("testdata/daytrader8-login.html") // a page Apache DayTrader 8 served
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/html;charset=ISO-8859-1\r\nContent-Language: en-US\r\n" +
			"Content-Length: " + fmt.Sprint(len(page)) + "\r\nDate: Sat, 28 Nov 2026 04:00:00 GMT\r\n\r\n" + string(page),
		"HTTP/1.1 302 Found\r\nLocation: /daytrader/app?action=home\r\nSet-Cookie: JSESSIONID=0000abc:-1; Path=/; HttpOnly\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nTrailer: x\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbody to the end",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\nx",
		"HTTP/1.1 200 OK\r\n" + strings.Repeat("Set-Cookie: c=1\r\n", 600) + "\r\n",
		"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/2 200\r\n\r\n",
		"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	const maxBody, limit = 64 << 10, 128 << 10
	f.Fuzz(func(t *testing.T, data []byte, keepBody bool) {
		bud := NewBodyBudget(limit)
		c := NewClient(&Options{Budget: bud})
		req := &Request{Method: "GET", KeepBody: keepBody, MaxBody: maxBody}
		resp, _, _, err := c.readResponse(bufio.NewReaderSize(bytes.NewReader(data), 4096), req)
		if len(resp.Body) > maxBody || resp.Bytes > int64(len(data)) {
			t.Fatalf("kept %d bytes (bound %d), counted %d of %d sent", len(resp.Body), maxBody, resp.Bytes, len(data))
		}
		if c.body != nil && int64(cap(*c.body)) > pooledBody+c.reserved {
			t.Fatalf("a kept buffer of %d bytes, only %d of it charged to the budget", cap(*c.body), pooledBody+c.reserved)
		}
		if bud.Peak() > limit {
			t.Fatalf("the budget held %d bytes, past its limit of %d", bud.Peak(), limit)
		}
		c.ReleaseBody()
		if n := bud.InUse(); n != 0 {
			t.Fatalf("%d bytes of the budget still held after ReleaseBody", n)
		}
		if err != nil || resp.Status < 200 && resp.Status != 101 {
			return
		}
		var head bytes.Buffer
		fmt.Fprintf(&head, "HTTP/1.1 %03d X\r\n", resp.Status)
		if resp.Location != "" {
			fmt.Fprintf(&head, "Location: %s\r\n", resp.Location)
		}
		body := resp.Body
		if !keepBody {
			body = bytes.Repeat([]byte("x"), int(resp.Bytes))
		}
		fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n%s", len(body), body)
		c2 := NewClient(&Options{Budget: NewBodyBudget(limit)})
		back, _, _, err := c2.readResponse(bufio.NewReader(&head), req)
		if err != nil || back.Status != resp.Status || back.Location != resp.Location || back.Bytes != resp.Bytes || !bytes.Equal(back.Body, resp.Body) {
			t.Fatalf("re-serialised, read back as status %d Location %q %d bytes (%v); first read status %d Location %q %d bytes", back.Status,
				back.Location, back.Bytes, err, resp.Status, resp.Location, resp.Bytes)
		}
		c2.ReleaseBody()
	})
}
