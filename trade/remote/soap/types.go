package soap

import (
	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/trade"
)

// The model's complex types: their fields (which also make the WSDL's schema), writers and
// readers. Field order is the xs:sequence order; the read switches index the same order.

var accountFields = []field{
	{Name: "accountID", XSD: "xs:long"},
	{Name: "userID", XSD: "xs:string"},
	{Name: "balance", XSD: "tns:Money"},
	{Name: "openBalance", XSD: "tns:Money"},
	{Name: "creationDate", XSD: "xs:dateTime", Optional: true},
	{Name: "lastLogin", XSD: "xs:dateTime", Optional: true},
	{Name: "loginCount", XSD: "xs:long"},
	{Name: "logoutCount", XSD: "xs:long"},
}

func appendAccount(b []byte, name string, a trade.Account) []byte {
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendInt(b, "accountID", a.AccountID)
	b = soapxml.AppendString(b, "userID", a.UserID)
	b = appendMoney(b, "balance", a.Balance)
	b = appendMoney(b, "openBalance", a.OpenBalance)
	b = appendTime(b, "creationDate", a.CreationDate)
	b = appendTime(b, "lastLogin", a.LastLogin)
	b = soapxml.AppendInt(b, "loginCount", a.LoginCount)
	b = soapxml.AppendInt(b, "logoutCount", a.LogoutCount)
	return soapxml.AppendEnd(b, name)
}

func readAccount(c *cursor) (a trade.Account, err error) {
	err = c.Record("account", accountFields, func(i int, t *soapxml.Token) error {
		s, err := c.String(t)
		if err != nil {
			return err
		}
		n := accountFields[i].Name
		switch i {
		case 0:
			a.AccountID, err = parseInt(n, s)
		case 1:
			a.UserID = s
		case 2:
			a.Balance, err = parseMoney(n, s)
		case 3:
			a.OpenBalance, err = parseMoney(n, s)
		case 4:
			a.CreationDate, err = parseTime(n, s)
		case 5:
			a.LastLogin, err = parseTime(n, s)
		case 6:
			a.LoginCount, err = parseInt(n, s)
		case 7:
			a.LogoutCount, err = parseInt(n, s)
		}
		return err
	})
	return a, err
}

// profileFields: the password is only ever sent (update), never returned.
var profileFields = []field{
	{Name: "userID", XSD: "xs:string"},
	{Name: "password", XSD: "xs:string", Optional: true},
	{Name: "fullName", XSD: "xs:string"},
	{Name: "address", XSD: "xs:string"},
	{Name: "email", XSD: "xs:string"},
	{Name: "creditCard", XSD: "xs:string"},
}

func appendProfile(b []byte, name string, p trade.AccountProfile) []byte {
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendString(b, "userID", p.UserID)
	if p.Password != "" {
		b = soapxml.AppendString(b, "password", p.Password)
	}
	b = soapxml.AppendStrings(b, profileFields[2:], p.FullName, p.Address, p.Email, p.CreditCard)
	return soapxml.AppendEnd(b, name)
}

func readProfile(c *cursor) (p trade.AccountProfile, err error) {
	err = c.Record("profile", profileFields, func(i int, t *soapxml.Token) error {
		s, err := c.String(t)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			p.UserID = s
		case 1:
			p.Password = s
		case 2:
			p.FullName = s
		case 3:
			p.Address = s
		case 4:
			p.Email = s
		case 5:
			p.CreditCard = s
		}
		return nil
	})
	return p, err
}

var holdingFields = []field{
	{Name: "holdingID", XSD: "xs:long"},
	{Name: "accountID", XSD: "xs:long"},
	{Name: "symbol", XSD: "xs:string"},
	{Name: "quantity", XSD: "xs:long"},
	{Name: "purchasePrice", XSD: "tns:Money"},
	{Name: "purchaseDate", XSD: "xs:dateTime", Optional: true},
}

func appendHolding(b []byte, name string, h trade.Holding) []byte {
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendInt(b, "holdingID", h.HoldingID)
	b = soapxml.AppendInt(b, "accountID", h.AccountID)
	b = soapxml.AppendString(b, "symbol", h.Symbol)
	b = soapxml.AppendInt(b, "quantity", h.Quantity)
	b = appendMoney(b, "purchasePrice", h.PurchasePrice)
	b = appendTime(b, "purchaseDate", h.PurchaseDate)
	return soapxml.AppendEnd(b, name)
}

func readHolding(c *cursor) (h trade.Holding, err error) {
	err = c.Record("holding", holdingFields, func(i int, t *soapxml.Token) error {
		s, err := c.String(t)
		if err != nil {
			return err
		}
		n := holdingFields[i].Name
		switch i {
		case 0:
			h.HoldingID, err = parseInt(n, s)
		case 1:
			h.AccountID, err = parseInt(n, s)
		case 2:
			h.Symbol = s
		case 3:
			h.Quantity, err = parseInt(n, s)
		case 4:
			h.PurchasePrice, err = parseMoney(n, s)
		case 5:
			h.PurchaseDate, err = parseTime(n, s)
		}
		return err
	})
	return h, err
}

var orderFields = []field{
	{Name: "orderID", XSD: "xs:long"},
	{Name: "accountID", XSD: "xs:long"},
	{Name: "holdingID", XSD: "xs:long"},
	{Name: "symbol", XSD: "xs:string"},
	{Name: "type", XSD: "tns:OrderType"},
	{Name: "status", XSD: "tns:OrderStatus"},
	{Name: "openDate", XSD: "xs:dateTime", Optional: true},
	{Name: "completionDate", XSD: "xs:dateTime", Optional: true},
	{Name: "quantity", XSD: "xs:long"},
	{Name: "price", XSD: "tns:Money"},
	{Name: "fee", XSD: "tns:Money"},
}

var (
	orderTypes    = []string{string(trade.Buy), string(trade.Sell)}
	orderStatuses = []string{string(trade.StatusOpen), string(trade.StatusProcessing), string(trade.StatusClosed), string(trade.StatusCompleted),
		string(trade.StatusCancelled)}
)

func appendOrder(b []byte, name string, o trade.Order) []byte {
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendInt(b, "orderID", o.OrderID)
	b = soapxml.AppendInt(b, "accountID", o.AccountID)
	b = soapxml.AppendInt(b, "holdingID", o.HoldingID)
	b = soapxml.AppendString(b, "symbol", o.Symbol)
	b = soapxml.AppendString(b, "type", string(o.Type))
	b = soapxml.AppendString(b, "status", string(o.Status))
	b = appendTime(b, "openDate", o.OpenDate)
	b = appendTime(b, "completionDate", o.CompletionDate)
	b = soapxml.AppendInt(b, "quantity", o.Quantity)
	b = appendMoney(b, "price", o.Price)
	b = appendMoney(b, "fee", o.Fee)
	return soapxml.AppendEnd(b, name)
}

func oneOf(name, s string, allowed []string) (string, error) {
	for _, a := range allowed {
		if s == a {
			return a, nil
		}
	}
	return "", malformed("<%s> must be one of %v, not %q", name, allowed, soapxml.Shorten(s, 40))
}

func readOrder(c *cursor) (o trade.Order, err error) {
	err = c.Record("order", orderFields, func(i int, t *soapxml.Token) error {
		s, err := c.String(t)
		if err != nil {
			return err
		}
		n := orderFields[i].Name
		var v string
		switch i {
		case 0:
			o.OrderID, err = parseInt(n, s)
		case 1:
			o.AccountID, err = parseInt(n, s)
		case 2:
			o.HoldingID, err = parseInt(n, s)
		case 3:
			o.Symbol = s
		case 4:
			v, err = oneOf(n, s, orderTypes)
			o.Type = trade.OrderType(v)
		case 5:
			v, err = oneOf(n, s, orderStatuses)
			o.Status = trade.OrderStatus(v)
		case 6:
			o.OpenDate, err = parseTime(n, s)
		case 7:
			o.CompletionDate, err = parseTime(n, s)
		case 8:
			o.Quantity, err = parseInt(n, s)
		case 9:
			o.Price, err = parseMoney(n, s)
		case 10:
			o.Fee, err = parseMoney(n, s)
		}
		return err
	})
	return o, err
}

var quoteFields = []field{
	{Name: "symbol", XSD: "xs:string"},
	{Name: "companyName", XSD: "xs:string"},
	{Name: "price", XSD: "tns:Money"},
	{Name: "open", XSD: "tns:Money"},
	{Name: "low", XSD: "tns:Money"},
	{Name: "high", XSD: "tns:Money"},
	{Name: "change", XSD: "tns:Money"},
	{Name: "volume", XSD: "xs:long"},
}

func appendQuote(b []byte, name string, q trade.Quote) []byte {
	b = soapxml.AppendStart(b, name)
	b = soapxml.AppendString(b, "symbol", q.Symbol)
	b = soapxml.AppendString(b, "companyName", q.CompanyName)
	b = appendMoney(b, "price", q.Price)
	b = appendMoney(b, "open", q.Open)
	b = appendMoney(b, "low", q.Low)
	b = appendMoney(b, "high", q.High)
	b = appendMoney(b, "change", q.Change)
	b = soapxml.AppendInt(b, "volume", q.Volume)
	return soapxml.AppendEnd(b, name)
}

func readQuote(c *cursor) (q trade.Quote, err error) {
	err = c.Record("quote", quoteFields, func(i int, t *soapxml.Token) error {
		s, err := c.String(t)
		if err != nil {
			return err
		}
		n := quoteFields[i].Name
		switch i {
		case 0:
			q.Symbol = s
		case 1:
			q.CompanyName = s
		case 2:
			q.Price, err = parseMoney(n, s)
		case 3:
			q.Open, err = parseMoney(n, s)
		case 4:
			q.Low, err = parseMoney(n, s)
		case 5:
			q.High, err = parseMoney(n, s)
		case 6:
			q.Change, err = parseMoney(n, s)
		case 7:
			q.Volume, err = parseInt(n, s)
		}
		return err
	})
	return q, err
}

// quoteListFields is a list of quotes (the market summary's gainers and losers).
var quoteListFields = []field{{Name: "quote", XSD: "tns:Quote", Optional: true, Many: true}}

var summaryFields = []field{
	{Name: "tsia", XSD: "tns:Money"},
	{Name: "openTSIA", XSD: "tns:Money"},
	{Name: "volume", XSD: "xs:long"},
	{Name: "topGainers", XSD: "tns:QuoteList"},
	{Name: "topLosers", XSD: "tns:QuoteList"},
	{Name: "date", XSD: "xs:dateTime", Optional: true},
}

func appendSummary(b []byte, name string, m trade.MarketSummary) []byte {
	b = soapxml.AppendStart(b, name)
	b = appendMoney(b, "tsia", m.TSIA)
	b = appendMoney(b, "openTSIA", m.OpenTSIA)
	b = soapxml.AppendInt(b, "volume", m.Volume)
	b = soapxml.AppendStart(b, "topGainers")
	for _, q := range m.TopGainers {
		b = appendQuote(b, "quote", q)
	}
	b = soapxml.AppendEnd(b, "topGainers")
	b = soapxml.AppendStart(b, "topLosers")
	for _, q := range m.TopLosers {
		b = appendQuote(b, "quote", q)
	}
	b = soapxml.AppendEnd(b, "topLosers")
	b = appendTime(b, "date", m.Date)
	return soapxml.AppendEnd(b, name)
}

func readQuoteList(c *cursor, name string) ([]trade.Quote, error) {
	qs := []trade.Quote{}
	err := c.Record(name, quoteListFields, func(int, *soapxml.Token) error {
		q, err := readQuote(c)
		qs = append(qs, q)
		return err
	})
	return qs, err
}

func readSummary(c *cursor) (m trade.MarketSummary, err error) {
	err = c.Record("marketSummary", summaryFields, func(i int, t *soapxml.Token) error {
		n := summaryFields[i].Name
		var err error
		switch i {
		case 3:
			m.TopGainers, err = readQuoteList(c, "topGainers")
			return err
		case 4:
			m.TopLosers, err = readQuoteList(c, "topLosers")
			return err
		}
		s, err := c.String(t)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			m.TSIA, err = parseMoney(n, s)
		case 1:
			m.OpenTSIA, err = parseMoney(n, s)
		case 2:
			m.Volume, err = parseInt(n, s)
		case 5:
			m.Date, err = parseTime(n, s)
		}
		return err
	})
	return m, err
}

// complexTypes lists the schema's complex types for the WSDL.
var complexTypes = []struct {
	name   string
	fields []field
}{
	{"Account", accountFields},
	{"AccountProfile", profileFields},
	{"Holding", holdingFields},
	{"Order", orderFields},
	{"Quote", quoteFields},
	{"QuoteList", quoteListFields},
	{"MarketSummary", summaryFields},
	{"TradeFault", faultDetailFields},
}
