package objcache

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
)

// remote is a distributed cache server: Redis (RESP) or memcached (text protocol), spoken with
// the two commands a cache-aside read needs, GET and SET with an expiry. Values are encoded items
// (codec.go); the value's length arrives before its bytes, so the window permit is taken before
// the blob is read.
type remote interface {
	get(ctx context.Context, id int64, pin func(context.Context, int64) (func(), error)) (it *blobstore.Item, release func(), ok bool, err error)
	set(ctx context.Context, id int64, it *blobstore.Item, ttl time.Duration)
	countError()
	stats() RemoteStats
	close() error
}

// RemoteStats describes the distributed cache client.
type RemoteStats struct {
	Server    string `json:"server"`
	Protocol  string `json:"protocol"`
	Gets      int64  `json:"gets"`
	Hits      int64  `json:"hits"`
	Sets      int64  `json:"sets"`
	SetErrors int64  `json:"set_errors"`
	Errors    int64  `json:"errors"`
}

const remoteConns = 16

func dialRemote(raw string, window int64) (remote, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("cache URL %q: want redis://HOST:PORT[/DB] or memcached://HOST:PORT", raw)
	}
	host := u.Host
	if u.Port() == "" {
		port := "6379"
		if u.Scheme == "memcached" {
			port = "11211"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	p := &connPool{addr: host, idle: make(chan *rconn, remoteConns), slots: make(chan struct{}, remoteConns)}
	var r remote
	switch u.Scheme {
	case "redis":
		rc := &redisClient{pool: p}
		if pw, ok := u.User.Password(); ok {
			user := u.User.Username()
			if user == "" {
				rc.auth = []string{"AUTH", pw}
			} else {
				rc.auth = []string{"AUTH", user, pw}
			}
		}
		if db := strings.TrimPrefix(u.Path, "/"); db != "" {
			if _, err := strconv.Atoi(db); err != nil {
				return nil, fmt.Errorf("cache URL %q: database %q is not a number", raw, db)
			}
			rc.db = db
		}
		p.setup = rc.setup
		r = rc
	case "memcached":
		r = &memcacheClient{pool: p}
	default:
		return nil, fmt.Errorf("cache URL %q: unknown scheme", raw)
	}
	// Fail fast on a wrong address rather than on the first request.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := p.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("cache server %s: %w", host, err)
	}
	p.put(c)
	return r, nil
}

// rconn is one connection with its buffers.
type rconn struct {
	net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

type connPool struct {
	addr  string
	idle  chan *rconn
	slots chan struct{} // one per open connection
	setup func(*rconn) error
}

func (p *connPool) get(ctx context.Context) (*rconn, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		var d net.Dialer
		nc, err := d.DialContext(ctx, "tcp", p.addr)
		if err != nil {
			<-p.slots
			return nil, err
		}
		c := &rconn{Conn: nc, r: bufio.NewReaderSize(nc, 16<<10), w: bufio.NewWriterSize(nc, 16<<10)}
		if p.setup != nil {
			if err := p.setup(c); err != nil {
				nc.Close()
				<-p.slots
				return nil, err
			}
		}
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *connPool) put(c *rconn) { p.idle <- c }

// discard closes a connection in an unknown protocol state.
func (p *connPool) discard(c *rconn) {
	c.Close()
	<-p.slots
}

func (p *connPool) close() error {
	for {
		select {
		case c := <-p.idle:
			c.Close()
			<-p.slots
		default:
			return nil
		}
	}
}

type remoteCounters struct {
	gets, hits, sets, setErrors, errors atomic.Int64
}

func (c *remoteCounters) snapshot(server, proto string) RemoteStats {
	return RemoteStats{Server: server, Protocol: proto, Gets: c.gets.Load(), Hits: c.hits.Load(), Sets: c.sets.Load(), SetErrors: c.setErrors.Load(), Errors: c.errors.Load()}
}

func itemKey(id int64) string { return "cacheperf:item:" + strconv.FormatInt(id, 10) }

func deadline(ctx context.Context) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(10 * time.Second)
}

// readValue reads an n-byte encoded item from r, pinning n bytes first.
func readValue(ctx context.Context, r *bufio.Reader, n int64, pin func(context.Context, int64) (func(), error)) (*blobstore.Item, func(), error) {
	rel, err := pin(ctx, n)
	if err != nil {
		return nil, nil, err
	}
	lr := &io.LimitedReader{R: r, N: n}
	it, _, err := decodeItem(lr, n)
	if err == nil && lr.N != 0 {
		err = errors.New("value longer than its item")
	}
	if err != nil {
		rel()
		return nil, nil, err
	}
	return it, rel, nil
}

// --- Redis (RESP2) ---

type redisClient struct {
	pool *connPool
	auth []string
	db   string
	remoteCounters
}

func writeCommand(w *bufio.Writer, args ...[]byte) {
	w.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		w.WriteString("$" + strconv.Itoa(len(a)) + "\r\n")
		w.Write(a)
		w.WriteString("\r\n")
	}
}

func strArgs(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, v := range s {
		out[i] = []byte(v)
	}
	return out
}

func (rc *redisClient) setup(c *rconn) error {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	defer c.SetDeadline(time.Time{})
	if rc.auth != nil {
		writeCommand(c.w, strArgs(rc.auth...)...)
		if err := c.w.Flush(); err != nil {
			return err
		}
		if err := expectLine(c.r, "+OK"); err != nil {
			return fmt.Errorf("redis AUTH: %w", err)
		}
	}
	if rc.db != "" {
		writeCommand(c.w, strArgs("SELECT", rc.db)...)
		if err := c.w.Flush(); err != nil {
			return err
		}
		if err := expectLine(c.r, "+OK"); err != nil {
			return fmt.Errorf("redis SELECT: %w", err)
		}
	}
	writeCommand(c.w, strArgs("PING")...)
	if err := c.w.Flush(); err != nil {
		return err
	}
	return expectLine(c.r, "+PONG")
}

func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return "", errors.New("protocol error: line without CRLF")
	}
	return string(line[:len(line)-2]), nil
}

func expectLine(r *bufio.Reader, want string) error {
	got, err := readLine(r)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("server said %q, expected %q", got, want)
	}
	return nil
}

func (rc *redisClient) get(ctx context.Context, id int64, pin func(context.Context, int64) (func(), error)) (*blobstore.Item, func(), bool, error) {
	rc.gets.Add(1)
	c, err := rc.pool.get(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	c.SetDeadline(deadline(ctx))
	writeCommand(c.w, []byte("GET"), []byte(itemKey(id)))
	if err := c.w.Flush(); err != nil {
		rc.pool.discard(c)
		return nil, nil, false, err
	}
	line, err := readLine(c.r)
	if err != nil || len(line) < 2 || line[0] != '$' {
		rc.pool.discard(c)
		if err == nil {
			err = fmt.Errorf("redis GET: unexpected reply %q", line)
		}
		return nil, nil, false, err
	}
	n, err := strconv.ParseInt(line[1:], 10, 64)
	if err != nil {
		rc.pool.discard(c)
		return nil, nil, false, fmt.Errorf("redis GET: bad length %q", line)
	}
	if n < 0 { // nil bulk string: no such key
		c.SetDeadline(time.Time{})
		rc.pool.put(c)
		return nil, nil, false, nil
	}
	it, rel, err := readValue(ctx, c.r, n, pin)
	if err == nil {
		err = expectLine(c.r, "")
	}
	if err != nil {
		if rel != nil {
			rel()
		}
		rc.pool.discard(c)
		return nil, nil, false, err
	}
	c.SetDeadline(time.Time{})
	rc.pool.put(c)
	rc.hits.Add(1)
	return it, rel, true, nil
}

func (rc *redisClient) set(ctx context.Context, id int64, it *blobstore.Item, ttl time.Duration) {
	rc.sets.Add(1)
	c, err := rc.pool.get(ctx)
	if err != nil {
		rc.setErrors.Add(1)
		return
	}
	c.SetDeadline(deadline(ctx))
	key := itemKey(id)
	secs := strconv.FormatInt(int64(max(ttl/time.Second, 1)), 10)
	// The value is header+blob; written as one bulk string without copying the blob.
	hdr := appendHeader(nil, it, time.Now().Add(ttl))
	w := c.w
	w.WriteString("*5\r\n$3\r\nSET\r\n$" + strconv.Itoa(len(key)) + "\r\n" + key + "\r\n")
	w.WriteString("$" + strconv.Itoa(len(hdr)+len(it.Data)) + "\r\n")
	w.Write(hdr)
	w.Write(it.Data)
	w.WriteString("\r\n$2\r\nEX\r\n$" + strconv.Itoa(len(secs)) + "\r\n" + secs + "\r\n")
	if err := w.Flush(); err != nil {
		rc.setErrors.Add(1)
		rc.pool.discard(c)
		return
	}
	if err := expectLine(c.r, "+OK"); err != nil {
		rc.setErrors.Add(1)
		rc.pool.discard(c)
		return
	}
	c.SetDeadline(time.Time{})
	rc.pool.put(c)
}

func (rc *redisClient) countError()        { rc.errors.Add(1) }
func (rc *redisClient) stats() RemoteStats { return rc.snapshot(rc.pool.addr, "redis") }
func (rc *redisClient) close() error       { return rc.pool.close() }

// --- memcached (text protocol) ---

type memcacheClient struct {
	pool *connPool
	remoteCounters
}

func (mc *memcacheClient) get(ctx context.Context, id int64, pin func(context.Context, int64) (func(), error)) (*blobstore.Item, func(), bool, error) {
	mc.gets.Add(1)
	c, err := mc.pool.get(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	c.SetDeadline(deadline(ctx))
	key := itemKey(id)
	c.w.WriteString("get " + key + "\r\n")
	if err := c.w.Flush(); err != nil {
		mc.pool.discard(c)
		return nil, nil, false, err
	}
	line, err := readLine(c.r)
	if err != nil {
		mc.pool.discard(c)
		return nil, nil, false, err
	}
	if line == "END" {
		c.SetDeadline(time.Time{})
		mc.pool.put(c)
		return nil, nil, false, nil
	}
	// VALUE <key> <flags> <bytes>
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "VALUE" || f[1] != key {
		mc.pool.discard(c)
		return nil, nil, false, fmt.Errorf("memcached get: unexpected reply %q", line)
	}
	n, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil || n < 0 {
		mc.pool.discard(c)
		return nil, nil, false, fmt.Errorf("memcached get: bad length in %q", line)
	}
	it, rel, err := readValue(ctx, c.r, n, pin)
	if err == nil {
		err = expectLine(c.r, "")
	}
	if err == nil {
		err = expectLine(c.r, "END")
	}
	if err != nil {
		if rel != nil {
			rel()
		}
		mc.pool.discard(c)
		return nil, nil, false, err
	}
	c.SetDeadline(time.Time{})
	mc.pool.put(c)
	mc.hits.Add(1)
	return it, rel, true, nil
}

func (mc *memcacheClient) set(ctx context.Context, id int64, it *blobstore.Item, ttl time.Duration) {
	mc.sets.Add(1)
	c, err := mc.pool.get(ctx)
	if err != nil {
		mc.setErrors.Add(1)
		return
	}
	c.SetDeadline(deadline(ctx))
	hdr := appendHeader(nil, it, time.Now().Add(ttl))
	secs := int64(max(ttl/time.Second, 1))
	if secs > 30*24*3600 { // memcached reads larger values as absolute Unix times
		secs = 30 * 24 * 3600
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "set %s 0 %d %d\r\n", itemKey(id), secs, len(hdr)+len(it.Data))
	c.w.Write(b.Bytes())
	c.w.Write(hdr)
	c.w.Write(it.Data)
	c.w.WriteString("\r\n")
	if err := c.w.Flush(); err != nil {
		mc.setErrors.Add(1)
		mc.pool.discard(c)
		return
	}
	line, err := readLine(c.r)
	if err != nil {
		mc.setErrors.Add(1)
		mc.pool.discard(c)
		return
	}
	if line != "STORED" { // e.g. SERVER_ERROR object too large for cache: the reply is complete
		mc.setErrors.Add(1)
	}
	c.SetDeadline(time.Time{})
	mc.pool.put(c)
}

func (mc *memcacheClient) countError()        { mc.errors.Add(1) }
func (mc *memcacheClient) stats() RemoteStats { return mc.snapshot(mc.pool.addr, "memcached") }
func (mc *memcacheClient) close() error       { return mc.pool.close() }
