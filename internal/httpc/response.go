package httpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Reading a response is split as HTTP frames it: the status line, the header section (bounded
// in bytes and lines, since a target may send anything), then the body by whichever framing the
// headers chose. Each part reads straight from the connection's bufio.Reader without copying,
// so a body nobody keeps costs no memory.

var errMalformed = errors.New("malformed response")

// head is what a response's status line and header section say about the rest of it.
type head struct {
	status  int
	length  int64 // Content-Length, -1 when not given
	chunked bool  // Transfer-Encoding: chunked
	keep    bool  // the connection may carry another request
}

// readResponse reads one response; got reports whether any byte of it arrived (so a failed
// attempt on a reused connection may be retried only when nothing did) and keep whether the
// connection may be reused. Interim responses (100 Continue and friends) are read and skipped.
func (c *Client) readResponse(br *bufio.Reader, req *Request) (resp Response, got, keep bool, err error) {
	for {
		var line []byte
		line, err = br.ReadSlice('\n')
		got = got || len(line) > 0
		if err != nil {
			if err == bufio.ErrBufferFull {
				err = fmt.Errorf("%w: status line too long", errMalformed)
			}
			return resp, got, false, err
		}
		var h head
		if h, err = parseStatusLine(line); err != nil {
			return resp, got, false, err
		}
		resp.Status = h.status
		if err = c.readHeaders(br, &h, &resp, len(line)); err != nil {
			return resp, got, false, err
		}
		if h.status >= 100 && h.status < 200 && h.status != 101 {
			continue // 100 Continue and friends precede the real response
		}
		keep, err = c.readBody(br, req, &resp, &h)
		return resp, got, keep, err
	}
}

// parseStatusLine reads "HTTP/1.x SP 3DIGIT ...". HTTP/1.1 keeps the connection alive unless
// told otherwise; 1.0 closes it unless told.
func parseStatusLine(line []byte) (head, error) {
	h := head{length: -1}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return h, fmt.Errorf("%w: status line %q", errMalformed, trim(line))
	}
	st, ok := atoi3(line[9:12])
	if !ok {
		return h, fmt.Errorf("%w: status line %q", errMalformed, trim(line))
	}
	h.status, h.keep = st, line[7] == '1'
	return h, nil
}

// readHeaders reads the header section up to its blank line into h and resp, within the
// Options' bounds; headBytes is what the status line took of them.
func (c *Client) readHeaders(br *bufio.Reader, h *head, resp *Response, headBytes int) error {
	maxBytes, maxLines := c.opt.MaxHeaderBytes, c.opt.MaxHeaders
	if maxBytes <= 0 {
		maxBytes = DefaultMaxHeaderBytes
	}
	if maxLines <= 0 {
		maxLines = DefaultMaxHeaders
	}
	for lines := 0; ; lines++ {
		line, err := br.ReadSlice('\n')
		if headBytes += len(line); headBytes > maxBytes || lines > maxLines {
			return fmt.Errorf("%w: header section beyond %d lines or %d KiB (a target's headers are bounded: docs/security.md)",
				errMalformed, maxLines, maxBytes>>10)
		}
		if err != nil {
			if err == bufio.ErrBufferFull {
				err = fmt.Errorf("%w: header line longer than 4 KiB", errMalformed)
			}
			return err
		}
		l := trim(line)
		if len(l) == 0 {
			return nil
		}
		colon := bytes.IndexByte(l, ':')
		if colon <= 0 {
			return fmt.Errorf("%w: header line %q", errMalformed, l)
		}
		if err := c.header(l[:colon], bytes.TrimSpace(l[colon+1:]), h, resp); err != nil {
			return err
		}
	}
}

// header takes in the one header line named name. Only the few headers the client acts on are
// looked at, picked out by their length first: most lines cost one switch.
func (c *Client) header(name, val []byte, h *head, resp *Response) error {
	switch len(name) {
	case 14:
		if bytes.EqualFold(name, []byte("Content-Length")) {
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("%w: Content-Length %q", errMalformed, val)
			}
			h.length = n
		}
	case 17:
		if bytes.EqualFold(name, []byte("Transfer-Encoding")) {
			h.chunked = bytes.Contains(bytes.ToLower(val), []byte("chunked"))
		}
	case 10:
		if bytes.EqualFold(name, []byte("Connection")) {
			lv := bytes.ToLower(val)
			if bytes.Contains(lv, []byte("close")) {
				h.keep = false
			} else if bytes.Contains(lv, []byte("keep-alive")) {
				h.keep = true
			}
		} else if bytes.EqualFold(name, []byte("Set-Cookie")) {
			c.Jar.set(string(val))
		}
	case 8:
		if bytes.EqualFold(name, []byte("Location")) {
			resp.Location = string(val)
		}
	}
	return nil
}

// readBody reads the body by the framing h gives, into the kept body if req asks for it, and
// reports whether the connection may carry another request.
func (c *Client) readBody(br *bufio.Reader, req *Request, resp *Response, h *head) (keep bool, err error) {
	keep = h.keep
	if req.KeepBody {
		c.takeBody()
	}
	maxBody := req.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	switch {
	case req.Method == "HEAD" || h.status == 204 || h.status == 304: // no body
	case h.chunked:
		err = c.readChunked(br, resp, req.KeepBody, maxBody)
	case h.length >= 0:
		err = c.readLength(br, h.length, resp, req.KeepBody, maxBody)
	default: // body runs to the end of the connection
		keep = false
		err = c.readN(br, -1, resp, req.KeepBody, maxBody)
	}
	if req.KeepBody {
		resp.Body = *c.body
	}
	return keep, err
}

// readLength reads a body of the given Content-Length. A kept one is refused before reading if
// it is beyond maxBody, and since its size is known it is read into one buffer of that size,
// not a doubling series of copies.
func (c *Client) readLength(br *bufio.Reader, length int64, resp *Response, keepBody bool, maxBody int64) error {
	if keepBody && length > maxBody {
		return fmt.Errorf("%w: body of %d KiB, larger than %d KiB (the bound on a kept body)", errMalformed, length>>10, maxBody>>10)
	}
	if keepBody && length > int64(cap(*c.body)) {
		if err := c.grow(int(length)); err != nil {
			return err
		}
	}
	return c.readN(br, length, resp, keepBody, maxBody)
}

// readN reads n body bytes (n < 0: up to the end of the connection) as they are buffered,
// keeping them if asked and counting them.
func (c *Client) readN(br *bufio.Reader, n int64, resp *Response, keepBody bool, maxBody int64) error {
	for n != 0 {
		if _, err := br.Peek(1); err != nil {
			if n < 0 && err == io.EOF {
				return nil
			}
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		k := br.Buffered()
		if n >= 0 && int64(k) > n {
			k = int(n)
		}
		chunk, _ := br.Peek(k)
		if keepBody {
			if err := c.keep(chunk, maxBody); err != nil {
				return err
			}
		}
		br.Discard(k)
		resp.Bytes += int64(k)
		if n > 0 {
			n -= int64(k)
		}
	}
	return nil
}

// readChunked reads a chunked body: each chunk's size line, its bytes and CRLF, then after the
// last (empty) chunk the trailers, which are skipped.
func (c *Client) readChunked(br *bufio.Reader, resp *Response, keepBody bool, maxBody int64) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		h := trim(line)
		if i := bytes.IndexByte(h, ';'); i >= 0 {
			h = h[:i]
		}
		size, err := strconv.ParseUint(string(bytes.TrimSpace(h)), 16, 62)
		if err != nil {
			return fmt.Errorf("%w: chunk size %q", errMalformed, h)
		}
		if size == 0 {
			for { // trailers, then the blank line
				line, err = br.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(trim(line)) == 0 {
					return nil
				}
			}
		}
		if err := c.readN(br, int64(size), resp, keepBody, maxBody); err != nil {
			return err
		}
		line, err = br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(trim(line)) != 0 {
			return fmt.Errorf("%w: chunk not followed by CRLF", errMalformed)
		}
	}
}

// trim cuts a line's CRLF (or bare LF).
func trim(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// atoi3 parses a status code's three digits.
func atoi3(b []byte) (int, bool) {
	n := 0
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return n, true
}
