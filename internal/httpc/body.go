package httpc

import "fmt"

// A kept body (Request.KeepBody) lives in one buffer per Client, taken when a response starts
// and given back by ReleaseBody. Every byte of it beyond the pooled size is charged to the
// shared BodyBudget (bounds.go), so the driver's memory for bodies stays bounded however many
// users a target sends huge pages to.

// takeBody gives the client an empty body buffer for a kept response: from the pool, its
// capacity beyond pooledBody reserved (a pooled buffer a big page grew; if the budget has no
// room for it, a fresh small one).
func (c *Client) takeBody() {
	if c.body == nil {
		c.body = bodyPool.Get().(*[]byte)
		if extra := int64(cap(*c.body)) - pooledBody; extra > 0 {
			if c.opt.budget().reserve(extra) {
				c.reserved = extra
			} else {
				b := make([]byte, 0, pooledBody)
				c.body = &b
			}
		}
	}
	*c.body = (*c.body)[:0]
}

// keep appends chunk to the kept body, growing its buffer only within maxBody and the budget.
func (c *Client) keep(chunk []byte, maxBody int64) error {
	need := len(*c.body) + len(chunk)
	if int64(need) > maxBody {
		return fmt.Errorf("%w: body larger than %d KiB (the bound on a kept body)", errMalformed, maxBody>>10)
	}
	if need > cap(*c.body) {
		if err := c.grow(int(min(int64(max(2*cap(*c.body), need)), maxBody))); err != nil {
			return err
		}
	}
	*c.body = append(*c.body, chunk...)
	return nil
}

// dispose lets go of a body buffer that held reserved of the budget: a small one back to the
// shared pool, uncharged; a big one to the budget, still charged, for the next big body (not
// to the garbage collector: dropped, it would stay in memory uncounted until a collection).
func (c *Client) dispose(buf *[]byte, reserved int64) {
	bud := c.opt.budget()
	if cap(*buf) <= maxPooled || reserved < charge(cap(*buf)) {
		bud.release(reserved)
		if cap(*buf) <= maxPooled {
			*buf = (*buf)[:0]
			bodyPool.Put(buf)
		}
		return
	}
	bud.keep(buf)
}

// grow gives the kept body a buffer of capacity at least n holding what it has read: a free
// buffer of the budget if one fits, else a new one of exactly n, reserved first (letting free
// buffers go if they are what stands in the way). The old buffer is disposed of only once its
// bytes are copied, so while both live both are charged.
func (c *Client) grow(n int) error {
	bud := c.opt.budget()
	nb := bud.take(n)
	if nb == nil {
		if !bud.reserveFreeing(charge(n)) {
			return &Error{K: KindBodyBudget, Err: fmt.Errorf("a kept body growing to %d KiB would pass the driver's body memory budget of %d MiB "+
				"(the bodies all users keep at once; the BodyBudget setting raises it)", n>>10, bud.Limit()>>20)}
		}
		b := make([]byte, 0, n)
		nb = &b
	}
	*nb = append((*nb)[:0], *c.body...)
	c.dispose(c.body, c.reserved)
	c.body, c.reserved = nb, charge(cap(*nb))
	return nil
}
