package soap

import (
	"github.com/tradebench/tradebench/trade"
)

// The model's complex types: their fields (which also make the WSDL's schema), writers and
// readers. Field order is the xs:sequence order; the read switches index the same order.

var accountFields = []field{
	{name: "accountID", xsd: "xs:long"},
	{name: "userID", xsd: "xs:string"},
	{name: "balance", xsd: "tns:Money"},
	{name: "openBalance", xsd: "tns:Money"},
	{name: "creationDate", xsd: "xs:dateTime", optional: true},
	{name: "lastLogin", xsd: "xs:dateTime", optional: true},
	{name: "loginCount", xsd: "xs:long"},
	{name: "logoutCount", xsd: "xs:long"},
}

func appendAccount(b []byte, name string, a trade.Account) []byte {
	b = appendStart(b, name)
	b = appendInt(b, "accountID", a.AccountID)
	b = appendString(b, "userID", a.UserID)
	b = appendMoney(b, "balance", a.Balance)
	b = appendMoney(b, "openBalance", a.OpenBalance)
	b = appendTime(b, "creationDate", a.CreationDate)
	b = appendTime(b, "lastLogin", a.LastLogin)
	b = appendInt(b, "loginCount", a.LoginCount)
	b = appendInt(b, "logoutCount", a.LogoutCount)
	return appendEnd(b, name)
}

func readAccount(c *cursor) (a trade.Account, err error) {
	err = c.record(accountFields, func(i int) error {
		s, err := c.text()
		if err != nil {
			return err
		}
		n := accountFields[i].name
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
	{name: "userID", xsd: "xs:string"},
	{name: "password", xsd: "xs:string", optional: true},
	{name: "fullName", xsd: "xs:string"},
	{name: "address", xsd: "xs:string"},
	{name: "email", xsd: "xs:string"},
	{name: "creditCard", xsd: "xs:string"},
}

func appendProfile(b []byte, name string, p trade.AccountProfile) []byte {
	b = appendStart(b, name)
	b = appendString(b, "userID", p.UserID)
	if p.Password != "" {
		b = appendString(b, "password", p.Password)
	}
	b = appendString(b, "fullName", p.FullName)
	b = appendString(b, "address", p.Address)
	b = appendString(b, "email", p.Email)
	b = appendString(b, "creditCard", p.CreditCard)
	return appendEnd(b, name)
}

func readProfile(c *cursor) (p trade.AccountProfile, err error) {
	err = c.record(profileFields, func(i int) error {
		s, err := c.text()
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
	{name: "holdingID", xsd: "xs:long"},
	{name: "accountID", xsd: "xs:long"},
	{name: "symbol", xsd: "xs:string"},
	{name: "quantity", xsd: "xs:long"},
	{name: "purchasePrice", xsd: "tns:Money"},
	{name: "purchaseDate", xsd: "xs:dateTime", optional: true},
}

func appendHolding(b []byte, name string, h trade.Holding) []byte {
	b = appendStart(b, name)
	b = appendInt(b, "holdingID", h.HoldingID)
	b = appendInt(b, "accountID", h.AccountID)
	b = appendString(b, "symbol", h.Symbol)
	b = appendInt(b, "quantity", h.Quantity)
	b = appendMoney(b, "purchasePrice", h.PurchasePrice)
	b = appendTime(b, "purchaseDate", h.PurchaseDate)
	return appendEnd(b, name)
}

func readHolding(c *cursor) (h trade.Holding, err error) {
	err = c.record(holdingFields, func(i int) error {
		s, err := c.text()
		if err != nil {
			return err
		}
		n := holdingFields[i].name
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
	{name: "orderID", xsd: "xs:long"},
	{name: "accountID", xsd: "xs:long"},
	{name: "holdingID", xsd: "xs:long"},
	{name: "symbol", xsd: "xs:string"},
	{name: "type", xsd: "tns:OrderType"},
	{name: "status", xsd: "tns:OrderStatus"},
	{name: "openDate", xsd: "xs:dateTime", optional: true},
	{name: "completionDate", xsd: "xs:dateTime", optional: true},
	{name: "quantity", xsd: "xs:long"},
	{name: "price", xsd: "tns:Money"},
	{name: "fee", xsd: "tns:Money"},
}

var (
	orderTypes    = []string{string(trade.Buy), string(trade.Sell)}
	orderStatuses = []string{string(trade.StatusOpen), string(trade.StatusProcessing), string(trade.StatusClosed), string(trade.StatusCompleted), string(trade.StatusCancelled)}
)

func appendOrder(b []byte, name string, o trade.Order) []byte {
	b = appendStart(b, name)
	b = appendInt(b, "orderID", o.OrderID)
	b = appendInt(b, "accountID", o.AccountID)
	b = appendInt(b, "holdingID", o.HoldingID)
	b = appendString(b, "symbol", o.Symbol)
	b = appendString(b, "type", string(o.Type))
	b = appendString(b, "status", string(o.Status))
	b = appendTime(b, "openDate", o.OpenDate)
	b = appendTime(b, "completionDate", o.CompletionDate)
	b = appendInt(b, "quantity", o.Quantity)
	b = appendMoney(b, "price", o.Price)
	b = appendMoney(b, "fee", o.Fee)
	return appendEnd(b, name)
}

func oneOf(name, s string, allowed []string) (string, error) {
	for _, a := range allowed {
		if s == a {
			return a, nil
		}
	}
	return "", malformed("<%s> must be one of %v, not %q", name, allowed, shorten(s, 40))
}

func readOrder(c *cursor) (o trade.Order, err error) {
	err = c.record(orderFields, func(i int) error {
		s, err := c.text()
		if err != nil {
			return err
		}
		n := orderFields[i].name
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
	{name: "symbol", xsd: "xs:string"},
	{name: "companyName", xsd: "xs:string"},
	{name: "price", xsd: "tns:Money"},
	{name: "open", xsd: "tns:Money"},
	{name: "low", xsd: "tns:Money"},
	{name: "high", xsd: "tns:Money"},
	{name: "change", xsd: "tns:Money"},
	{name: "volume", xsd: "xs:long"},
}

func appendQuote(b []byte, name string, q trade.Quote) []byte {
	b = appendStart(b, name)
	b = appendString(b, "symbol", q.Symbol)
	b = appendString(b, "companyName", q.CompanyName)
	b = appendMoney(b, "price", q.Price)
	b = appendMoney(b, "open", q.Open)
	b = appendMoney(b, "low", q.Low)
	b = appendMoney(b, "high", q.High)
	b = appendMoney(b, "change", q.Change)
	b = appendInt(b, "volume", q.Volume)
	return appendEnd(b, name)
}

func readQuote(c *cursor) (q trade.Quote, err error) {
	err = c.record(quoteFields, func(i int) error {
		s, err := c.text()
		if err != nil {
			return err
		}
		n := quoteFields[i].name
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
var quoteListFields = []field{{name: "quote", xsd: "tns:Quote", optional: true, many: true}}

var summaryFields = []field{
	{name: "tsia", xsd: "tns:Money"},
	{name: "openTSIA", xsd: "tns:Money"},
	{name: "volume", xsd: "xs:long"},
	{name: "topGainers", xsd: "tns:QuoteList"},
	{name: "topLosers", xsd: "tns:QuoteList"},
	{name: "date", xsd: "xs:dateTime", optional: true},
}

func appendSummary(b []byte, name string, m trade.MarketSummary) []byte {
	b = appendStart(b, name)
	b = appendMoney(b, "tsia", m.TSIA)
	b = appendMoney(b, "openTSIA", m.OpenTSIA)
	b = appendInt(b, "volume", m.Volume)
	b = appendStart(b, "topGainers")
	for _, q := range m.TopGainers {
		b = appendQuote(b, "quote", q)
	}
	b = appendEnd(b, "topGainers")
	b = appendStart(b, "topLosers")
	for _, q := range m.TopLosers {
		b = appendQuote(b, "quote", q)
	}
	b = appendEnd(b, "topLosers")
	b = appendTime(b, "date", m.Date)
	return appendEnd(b, name)
}

func readQuoteList(c *cursor) ([]trade.Quote, error) {
	qs := []trade.Quote{}
	err := c.record(quoteListFields, func(int) error {
		q, err := readQuote(c)
		qs = append(qs, q)
		return err
	})
	return qs, err
}

func readSummary(c *cursor) (m trade.MarketSummary, err error) {
	err = c.record(summaryFields, func(i int) error {
		n := summaryFields[i].name
		var err error
		switch i {
		case 3:
			m.TopGainers, err = readQuoteList(c)
			return err
		case 4:
			m.TopLosers, err = readQuoteList(c)
			return err
		}
		s, err := c.text()
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
