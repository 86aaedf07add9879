package netfault

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Proxy is a network fault between two tiers where the kernel offers none: a TCP proxy that
// forwards every connection it accepts to a target and can cut the path or slow it. Where
// netem (tc) and iptables are missing — containers without CAP_NET_ADMIN, kernels built
// without sch_netem — a tier that is pointed at the proxy instead of its peer meets the same
// faults: connections reset and new ones refused (a cut), or every byte held for a while in
// each direction (a delay).
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	conns map[net.Conn]struct{} // both sides of every forwarded connection
	cut   bool
	delay time.Duration
	done  bool
	wg    sync.WaitGroup
}

// Listen starts a proxy on addr (host:port) that forwards to target; Serve accepts.
func Listen(addr, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}, nil
}

// Addr is the proxy's listening address.
func (p *Proxy) Addr() net.Addr { return p.ln.Addr() }

// Serve accepts connections until Close and forwards each to the target.
func (p *Proxy) Serve() error {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			p.mu.Lock()
			done := p.done
			p.mu.Unlock()
			if done {
				return nil
			}
			return err
		}
		p.mu.Lock()
		if p.cut || p.done {
			p.mu.Unlock()
			reset(c) // refused while cut: the client sees its connection reset at once
			continue
		}
		p.conns[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.forward(c)
	}
}

// Cut resets every forwarded connection (both sides, RST: the peers see "connection reset")
// and resets every new one as it is accepted, until Heal.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		reset(c)
	}
}

// Delay holds every chunk of bytes read from either side for d before it is written to the
// other, until Heal: d added to each direction, the order of the bytes kept. A chunk read
// before Delay is not held.
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// Heal ends a cut or a delay: new connections are forwarded again, bytes without delay.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut, p.delay = false, 0
}

// Close stops accepting, closes every forwarded connection and waits for their forwarding to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.done = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

// reset closes c with an RST rather than a FIN, as a path that breaks does.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

func (p *Proxy) forward(client net.Conn) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", p.target, 10*time.Second)
	p.mu.Lock()
	if err == nil && (p.cut || p.done) { // cut while dialling
		reset(server)
		err = errors.New("netfault: cut")
	}
	if err != nil {
		delete(p.conns, client)
		p.mu.Unlock()
		reset(client) // the target refused: so does the proxy
		return
	}
	p.conns[server] = struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(server, client) }()
	go func() { defer wg.Done(); p.pipe(client, server) }()
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// chunk is bytes read from one side, to be written to the other at due.
type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies src to dst one direction, each chunk held by the delay in force when it was read.
// The reader and the writer are apart so that a delay holds bytes, not the reading of them.
func (p *Proxy) pipe(dst, src net.Conn) {
	ch := make(chan chunk, 64)
	var rerr error // the reader's last error, read after ch is closed
	go func() {
		defer close(ch)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				p.mu.Lock()
				d := p.delay
				p.mu.Unlock()
				ch <- chunk{b[:n], time.Now().Add(d)}
			}
			if err != nil {
				rerr = err
				return
			}
		}
	}()
	for c := range ch {
		if w := time.Until(c.due); w > 0 {
			time.Sleep(w)
		}
		if _, err := dst.Write(c.b); err != nil {
			src.Close()
			for range ch { // let the reader end
			}
			return
		}
	}
	// src ended: pass the end on — a half close when it was a FIN, so that a reply may still
	// come; a reset when src was reset
	if tc, ok := dst.(*net.TCPConn); ok && errors.Is(rerr, io.EOF) {
		tc.CloseWrite()
	} else {
		reset(dst)
	}
}
