package soap

import (
	"context"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/trade"
)

// opSpec is one operation of the contract: document/literal wrapped, the request element is
// the operation name with the parameters as children, the response element is name+"Response"
// with the result as children. The specs drive the server's decoder, the client and the WSDL.
type opSpec struct {
	name string
	in   []field
	out  []field
	call func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error)
}

var userIn = []field{{Name: "userID", XSD: "xs:string"}}

var ops = []*opSpec{
	{name: "login", in: []field{{Name: "userID", XSD: "xs:string"}, {Name: "password", XSD: "xs:string"}},
		out: []field{{Name: "account", XSD: "tns:Account"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			acct, err := s.svc.Login(ctx, a.str(0), a.str(1))
			return appendAccount(b, "account", acct), err
		}},
	{name: "logout", in: userIn,
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			return b, s.svc.Logout(ctx, a.str(0))
		}},
	{name: "register", in: []field{
		{Name: "userID", XSD: "xs:string"}, {Name: "password", XSD: "xs:string"},
		{Name: "fullName", XSD: "xs:string"}, {Name: "address", XSD: "xs:string"},
		{Name: "email", XSD: "xs:string"}, {Name: "creditCard", XSD: "xs:string"},
		{Name: "openBalance", XSD: "tns:Money"}},
		out: []field{{Name: "account", XSD: "tns:Account"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			bal, err := a.money(6)
			if err != nil {
				return b, err
			}
			acct, err := s.svc.Register(ctx, trade.RegisterRequest{
				UserID: a.str(0), Password: a.str(1), FullName: a.str(2), Address: a.str(3),
				Email: a.str(4), CreditCard: a.str(5), OpenBalance: bal,
			})
			return appendAccount(b, "account", acct), err
		}},
	{name: "getAccountData", in: userIn,
		out: []field{{Name: "account", XSD: "tns:Account"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			acct, err := s.svc.GetAccountData(ctx, a.str(0))
			return appendAccount(b, "account", acct), err
		}},
	{name: "getAccountProfileData", in: userIn,
		out: []field{{Name: "profile", XSD: "tns:AccountProfile"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			p, err := s.svc.GetAccountProfileData(ctx, a.str(0))
			p.Password = "" // never returned, whatever the service does
			return appendProfile(b, "profile", p), err
		}},
	{name: "updateAccountProfile", in: []field{{Name: "profile", XSD: "tns:AccountProfile"}},
		out: []field{{Name: "profile", XSD: "tns:AccountProfile"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			p, err := s.svc.UpdateAccountProfile(ctx, a.profile)
			p.Password = ""
			return appendProfile(b, "profile", p), err
		}},
	{name: "getHoldings", in: userIn,
		out: []field{{Name: "holding", XSD: "tns:Holding", Optional: true, Many: true}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			hs, err := s.svc.GetHoldings(ctx, a.str(0))
			for _, h := range hs {
				b = appendHolding(b, "holding", h)
			}
			return b, err
		}},
	{name: "getHolding", in: []field{{Name: "userID", XSD: "xs:string"}, {Name: "holdingID", XSD: "xs:long"}},
		out: []field{{Name: "holding", XSD: "tns:Holding"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			id, err := a.int(1)
			if err != nil {
				return b, err
			}
			h, err := s.svc.GetHolding(ctx, a.str(0), id)
			return appendHolding(b, "holding", h), err
		}},
	{name: "getOrders", in: []field{{Name: "userID", XSD: "xs:string"}, {Name: "limit", XSD: "xs:int", Optional: true}},
		out: []field{{Name: "order", XSD: "tns:Order", Optional: true, Many: true}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			limit, err := a.int(1)
			if err != nil {
				return b, err
			}
			if limit > 1<<31-1 || limit < -1<<31 {
				return b, malformed("<limit> must be an xs:int")
			}
			os, err := s.svc.GetOrders(ctx, a.str(0), int(limit))
			for _, o := range os {
				b = appendOrder(b, "order", o)
			}
			return b, err
		}},
	{name: "getClosedOrders", in: userIn,
		out: []field{{Name: "order", XSD: "tns:Order", Optional: true, Many: true}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			os, err := s.svc.GetClosedOrders(ctx, a.str(0))
			for _, o := range os {
				b = appendOrder(b, "order", o)
			}
			return b, err
		}},
	{name: "getQuote", in: []field{{Name: "symbol", XSD: "xs:string"}},
		out: []field{{Name: "quote", XSD: "tns:Quote"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			q, err := s.svc.GetQuote(ctx, a.str(0))
			return appendQuote(b, "quote", q), err
		}},
	{name: "getQuotes", in: []field{{Name: "symbol", XSD: "xs:string", Optional: true, Many: true}},
		out: []field{{Name: "quote", XSD: "tns:Quote", Optional: true, Many: true}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			qs, err := s.svc.GetQuotes(ctx, a.v[0])
			for _, q := range qs {
				b = appendQuote(b, "quote", q)
			}
			return b, err
		}},
	{name: "getMarketSummary",
		out: []field{{Name: "marketSummary", XSD: "tns:MarketSummary"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			m, err := s.svc.GetMarketSummary(ctx)
			return appendSummary(b, "marketSummary", m), err
		}},
	{name: "buy", in: []field{{Name: "userID", XSD: "xs:string"}, {Name: "symbol", XSD: "xs:string"}, {Name: "quantity", XSD: "xs:long"}},
		out: []field{{Name: "order", XSD: "tns:Order"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			q, err := a.int(2)
			if err != nil {
				return b, err
			}
			o, err := s.svc.Buy(ctx, a.str(0), a.str(1), q)
			return appendOrder(b, "order", o), err
		}},
	{name: "sell", in: []field{{Name: "userID", XSD: "xs:string"}, {Name: "holdingID", XSD: "xs:long"}, {Name: "quantity", XSD: "xs:long"}},
		out: []field{{Name: "order", XSD: "tns:Order"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			id, err := a.int(1)
			if err != nil {
				return b, err
			}
			q, err := a.int(2)
			if err != nil {
				return b, err
			}
			o, err := s.svc.Sell(ctx, a.str(0), id, q)
			return appendOrder(b, "order", o), err
		}},
	{name: "completeOrder", in: []field{{Name: "orderID", XSD: "xs:long"}},
		out: []field{{Name: "order", XSD: "tns:Order"}},
		call: func(ctx context.Context, s *Handler, a args, b []byte) ([]byte, error) {
			id, err := a.int(0)
			if err != nil {
				return b, err
			}
			if s.proc == nil {
				return b, errNoProcessor
			}
			o, err := s.proc.CompleteOrder(ctx, id)
			return appendOrder(b, "order", o), err
		}},
}

var opByName = func() map[string]*opSpec {
	m := make(map[string]*opSpec, len(ops))
	for _, o := range ops {
		m[o.name] = o
	}
	return m
}()

// args are an operation's decoded parameters: the texts of each field of the spec (several for
// a repeated one), or the profile for updateAccountProfile.
type args struct {
	op      *opSpec
	v       [][]string
	profile trade.AccountProfile
}

func (a args) str(i int) string {
	if len(a.v[i]) == 0 {
		return ""
	}
	return a.v[i][0]
}

// int parses an xs:long parameter; an absent optional one is 0.
func (a args) int(i int) (int64, error) {
	if len(a.v[i]) == 0 {
		return 0, nil
	}
	return parseInt(a.op.in[i].Name, a.v[i][0])
}

func (a args) money(i int) (trade.Money, error) {
	return parseMoney(a.op.in[i].Name, a.str(i))
}

// readArgs decodes the children of the operation element.
func readArgs(c *cursor, op *opSpec) (args, error) {
	a := args{op: op, v: make([][]string, len(op.in))}
	err := c.Record(op.name, op.in, func(i int, t *soapxml.Token) error {
		if op.in[i].XSD == "tns:AccountProfile" {
			p, err := readProfile(c)
			a.profile = p
			return err
		}
		s, err := c.String(t)
		a.v[i] = append(a.v[i], s)
		return err
	})
	return a, err
}
