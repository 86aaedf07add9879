package soap

import (
	"context"
	"errors"
	"fmt"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/wstest"
)

// Client calls WSTest over SOAP 1.1 the way a generated .NET or JAX-RPC proxy does: a
// default-namespace body element and SOAPAction "uri:WSTestWeb-TestService/<Operation>".
type Client struct {
	p    wstest.Poster
	lim  wstest.Limits
	path string
	buf  []byte
	last wstest.Exchange
}

var _ wstest.Client = (*Client)(nil)

// NewClient returns a client posting to path (Path if empty) through p.
func NewClient(p wstest.Poster, path string, lim wstest.Limits) *Client {
	if path == "" {
		path = Path
	}
	return &Client{p: p, lim: lim.OrDefault(), path: path}
}

// Last implements wstest.Client.
func (c *Client) Last() wstest.Exchange { return c.last }

// Close implements wstest.Client.
func (c *Client) Close() error { return c.p.Close() }

var soapActions = func() (a [wstest.NumOps]string) {
	for _, op := range wstest.Ops() {
		a[op] = wstest.Namespace + "/" + op.String()
	}
	return
}()

func (c *Client) call(ctx context.Context, req, resp *Message) error {
	c.buf = AppendRequest(c.buf[:0], req)
	status, body, err := c.p.Post(ctx, &wstest.PostRequest{Path: c.path, ContentType: soapxml.ContentType,
		SOAPAction: soapActions[req.Op], Body: c.buf})
	c.last = wstest.Exchange{Status: status, Bytes: int64(len(body))}
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return fmt.Errorf("HTTP %d with an empty body", status)
	}
	if err := DecodeResponse(body, c.lim, resp); err != nil {
		var f *Fault
		if errors.As(err, &f) { // the response itself was refused by our decoder
			err = errors.New(f.String)
		}
		return fmt.Errorf("bad SOAP response (HTTP %d): %w", status, err)
	}
	if resp.Fault != nil {
		return &wstest.RemoteError{Code: "soap:" + resp.Fault.Code, Message: resp.Fault.String}
	}
	if status != 200 {
		return fmt.Errorf("HTTP %d with a non-fault SOAP response", status)
	}
	if resp.Op != req.Op {
		return fmt.Errorf("asked %s, got the response of %s", req.Op, resp.Op)
	}
	return nil
}

// EchoVoid implements wstest.Client.
func (c *Client) EchoVoid(ctx context.Context) error {
	var resp Message
	return c.call(ctx, &Message{Op: wstest.EchoVoid}, &resp)
}

// EchoStruct implements wstest.Client.
func (c *Client) EchoStruct(ctx context.Context, in []wstest.Struct) ([]wstest.Struct, error) {
	var resp Message
	err := c.call(ctx, &Message{Op: wstest.EchoStruct, Structs: in}, &resp)
	return resp.Structs, err
}

// EchoList implements wstest.Client.
func (c *Client) EchoList(ctx context.Context, in *wstest.Node) (*wstest.Node, error) {
	var resp Message
	err := c.call(ctx, &Message{Op: wstest.EchoList, List: in}, &resp)
	return resp.List, err
}

// EchoSynthetic implements wstest.Client.
func (c *Client) EchoSynthetic(ctx context.Context, in *wstest.Synthetic) (*wstest.Synthetic, error) {
	var resp Message
	err := c.call(ctx, &Message{Op: wstest.EchoSynthetic, Synth: in}, &resp)
	return resp.Synth, err
}

// GetOrder implements wstest.Client.
func (c *Client) GetOrder(ctx context.Context, orderID, customerID, messageSize int32) (*wstest.Order, error) {
	var resp Message
	err := c.call(ctx, &Message{Op: wstest.GetOrder, OrderID: orderID, CustomerID: customerID, Size: messageSize}, &resp)
	return resp.Order, err
}
