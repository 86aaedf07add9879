// Package jsonapi serves and calls the WSTest operations as JSON over HTTP:
// POST /wstest/json/{operation} with the SOAP contract's element names as JSON keys, e.g.
//
//	POST /wstest/json/EchoList   {"list":{"i":0,"f":0.25,"s":"a","Next":{"i":1,...}}}
//	200                          {"EchoListResult":{"i":0,"f":0.25,"s":"a","Next":{...}}}
//
// Errors are {"error":"..."} with 400 (bad body), 404 (unknown operation), 405 (not POST) or
// 413 (body too large).
package jsonapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/tradebench/tradebench/wstest"
)

// PathPrefix is where the operations are mounted: PathPrefix + "EchoList".
const PathPrefix = "/wstest/json/"

// Request is every operation's request body (each uses its own fields).
type Request struct {
	Array      []wstest.Struct   `json:"array,omitempty"`
	List       *wstest.Node      `json:"list,omitempty"`
	Synth      *wstest.Synthetic `json:"synth,omitempty"`
	OrderID    int32             `json:"orderId,omitempty"`
	CustomerID int32             `json:"customerId,omitempty"`
	Size       int32             `json:"messageSize,omitempty"`
}

// Response is every operation's response body.
type Response struct {
	EchoStructResult    []wstest.Struct   `json:"EchoStructResult,omitempty"`
	EchoListResult      *wstest.Node      `json:"EchoListResult,omitempty"`
	EchoSyntheticResult *wstest.Synthetic `json:"EchoSyntheticResult,omitempty"`
	GetOrderResult      *wstest.Order     `json:"GetOrderResult,omitempty"`
}

type errorBody struct {
	Error string `json:"error"`
}

// Handler serves PathPrefix + operation.
type Handler struct {
	lim wstest.Limits
	log *slog.Logger
}

// NewHandler returns the JSON endpoint with the given limits.
func NewHandler(lim wstest.Limits, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{lim: lim.OrDefault(), log: log}
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (h *Handler) fail(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(errorBody{Error: fmt.Sprintf(format, args...)})
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.log.Error("wstest json: panic", "panic", v)
			h.fail(w, http.StatusInternalServerError, "internal error")
		}
	}()
	name := r.URL.Path
	if len(name) > len(PathPrefix) && name[:len(PathPrefix)] == PathPrefix {
		name = name[len(PathPrefix):]
	}
	op, ok := wstest.ParseOp(name)
	if !ok {
		h.fail(w, http.StatusNotFound, "unknown operation %q: use one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder", name)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		h.fail(w, http.StatusMethodNotAllowed, "method %s not allowed: POST a JSON body", r.Method)
		return
	}
	if r.ContentLength > h.lim.MaxBodyBytes {
		h.fail(w, http.StatusRequestEntityTooLarge, "request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, h.lim.MaxBodyBytes)
		return
	}
	var req Request
	body := &itemCounter{r: http.MaxBytesReader(w, r.Body, h.lim.MaxBodyBytes), max: h.lim.MaxItems + itemSlack}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil && !(err == io.EOF && op == wstest.EchoVoid) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.fail(w, http.StatusRequestEntityTooLarge, "request body exceeds the limit of %d bytes", h.lim.MaxBodyBytes)
			return
		}
		if err == io.EOF {
			err = errors.New("empty body: send a JSON object")
		}
		h.fail(w, http.StatusBadRequest, "bad %s request: %v", op, err)
		return
	}
	if dec.More() {
		h.fail(w, http.StatusBadRequest, "bad %s request: more than one JSON value in the body", op)
		return
	}
	if body.err != nil { // More found no value because reading past the first failed
		h.fail(w, http.StatusBadRequest, "bad %s request: %v", op, body.err)
		return
	}
	var resp Response
	switch op {
	case wstest.EchoStruct:
		if err := h.lim.CheckItems("array", len(req.Array)); err != nil {
			h.fail(w, http.StatusBadRequest, "%v", err)
			return
		}
		resp.EchoStructResult = req.Array
		if resp.EchoStructResult == nil {
			resp.EchoStructResult = []wstest.Struct{}
		}
	case wstest.EchoList:
		if err := h.lim.CheckItems("list", wstest.ListLen(req.List, h.lim.MaxItems)); err != nil {
			h.fail(w, http.StatusBadRequest, "%v", err)
			return
		}
		resp.EchoListResult = req.List
	case wstest.EchoSynthetic:
		resp.EchoSyntheticResult = req.Synth
	case wstest.GetOrder:
		if req.Size < 0 {
			h.fail(w, http.StatusBadRequest, "messageSize %d: must be 0 or more", req.Size)
			return
		}
		if err := h.lim.CheckItems("messageSize", int(req.Size)); err != nil {
			h.fail(w, http.StatusBadRequest, "%v", err)
			return
		}
		resp.GetOrderResult = wstest.BuildOrder(req.OrderID, req.CustomerID, req.Size)
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 {
			buf.Reset()
			bufPool.Put(buf)
		}
	}()
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(&resp); err != nil {
		// only non-finite floats cannot be encoded, and they cannot arrive in JSON
		h.fail(w, http.StatusInternalServerError, "encoding the response: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes())
}

// Client calls the JSON endpoint.
type Client struct {
	p    wstest.Poster
	lim  wstest.Limits
	last wstest.Exchange
	buf  bytes.Buffer
}

var _ wstest.Client = (*Client)(nil)

// NewClient returns a client posting through p.
func NewClient(p wstest.Poster, lim wstest.Limits) *Client {
	return &Client{p: p, lim: lim.OrDefault()}
}

// Last implements wstest.Client.
func (c *Client) Last() wstest.Exchange { return c.last }

// Close implements wstest.Client.
func (c *Client) Close() error { return c.p.Close() }

var paths = func() (p [wstest.NumOps]string) {
	for _, op := range wstest.Ops() {
		p[op] = PathPrefix + op.String()
	}
	return
}()

func (c *Client) call(ctx context.Context, op wstest.Op, req *Request, resp *Response) error {
	c.buf.Reset()
	if err := json.NewEncoder(&c.buf).Encode(req); err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	status, body, err := c.p.Post(ctx, &wstest.PostRequest{Path: paths[op], ContentType: "application/json", Body: c.buf.Bytes()})
	c.last = wstest.Exchange{Status: status, Bytes: int64(len(body))}
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		var eb errorBody
		if json.Unmarshal(body, &eb) == nil && eb.Error != "" {
			return &wstest.RemoteError{Code: strconv.Itoa(status), Message: eb.Error}
		}
		return fmt.Errorf("HTTP %d: %.200q", status, body)
	}
	if err := json.Unmarshal(body, resp); err != nil {
		return fmt.Errorf("bad JSON response: %w", err)
	}
	return nil
}

// EchoVoid implements wstest.Client.
func (c *Client) EchoVoid(ctx context.Context) error {
	var resp Response
	return c.call(ctx, wstest.EchoVoid, &Request{}, &resp)
}

// EchoStruct implements wstest.Client.
func (c *Client) EchoStruct(ctx context.Context, in []wstest.Struct) ([]wstest.Struct, error) {
	var resp Response
	err := c.call(ctx, wstest.EchoStruct, &Request{Array: in}, &resp)
	return resp.EchoStructResult, err
}

// EchoList implements wstest.Client.
func (c *Client) EchoList(ctx context.Context, in *wstest.Node) (*wstest.Node, error) {
	var resp Response
	err := c.call(ctx, wstest.EchoList, &Request{List: in}, &resp)
	return resp.EchoListResult, err
}

// EchoSynthetic implements wstest.Client.
func (c *Client) EchoSynthetic(ctx context.Context, in *wstest.Synthetic) (*wstest.Synthetic, error) {
	var resp Response
	err := c.call(ctx, wstest.EchoSynthetic, &Request{Synth: in}, &resp)
	return resp.EchoSyntheticResult, err
}

// GetOrder implements wstest.Client.
func (c *Client) GetOrder(ctx context.Context, orderID, customerID, messageSize int32) (*wstest.Order, error) {
	var resp Response
	err := c.call(ctx, wstest.GetOrder, &Request{OrderID: orderID, CustomerID: customerID, Size: messageSize}, &resp)
	return resp.GetOrderResult, err
}
