// Package trade is the StockTrader / Trade 6.1 domain: the data model, the business service
// contract every access mode implements, and the pure business rules. It does no I/O.
package trade

import "time"

// AccountProfile is the user's identity and contact data.
type AccountProfile struct {
	UserID     string `json:"userID"`
	Password   string `json:"password,omitempty"` // only ever set on input (register, update); never returned
	FullName   string `json:"fullName"`
	Address    string `json:"address"`
	Email      string `json:"email"`
	CreditCard string `json:"creditCard"`
}

// Account is the brokerage account of one user.
type Account struct {
	AccountID    int64     `json:"accountID"`
	UserID       string    `json:"userID"`
	Balance      Money     `json:"balance"`
	OpenBalance  Money     `json:"openBalance"`
	CreationDate time.Time `json:"creationDate"`
	LastLogin    time.Time `json:"lastLogin"`
	LoginCount   int64     `json:"loginCount"`
	LogoutCount  int64     `json:"logoutCount"`
}

// Holding is a position in one symbol bought by one order.
type Holding struct {
	HoldingID     int64     `json:"holdingID"`
	AccountID     int64     `json:"accountID"`
	Symbol        string    `json:"symbol"`
	Quantity      int64     `json:"quantity"`
	PurchasePrice Money     `json:"purchasePrice"`
	PurchaseDate  time.Time `json:"purchaseDate"`
}

// OrderType is buy or sell.
type OrderType string

const (
	Buy  OrderType = "buy"
	Sell OrderType = "sell"
)

// OrderStatus is the order lifecycle: open (placed) -> processing (taken by an order processor)
// -> closed (done, alert not yet shown) -> completed (alert shown). cancelled ends an order that
// could not be done (e.g. the holding was already sold).
type OrderStatus string

const (
	StatusOpen       OrderStatus = "open"
	StatusProcessing OrderStatus = "processing"
	StatusClosed     OrderStatus = "closed"
	StatusCompleted  OrderStatus = "completed"
	StatusCancelled  OrderStatus = "cancelled"
)

// Final reports whether the order lifecycle has ended for s.
func (s OrderStatus) Final() bool {
	return s == StatusClosed || s == StatusCompleted || s == StatusCancelled
}

// Order is one buy or sell.
type Order struct {
	OrderID        int64       `json:"orderID"`
	AccountID      int64       `json:"accountID"`
	HoldingID      int64       `json:"holdingID,omitempty"` // the holding sold (sell) or created (buy, once completed)
	Symbol         string      `json:"symbol"`
	Type           OrderType   `json:"type"`
	Status         OrderStatus `json:"status"`
	OpenDate       time.Time   `json:"openDate"`
	CompletionDate time.Time   `json:"completionDate,omitzero"`
	Quantity       int64       `json:"quantity"`
	Price          Money       `json:"price"`
	Fee            Money       `json:"fee"`
}

// Total is what the order moves in cash: price × quantity + fee for a buy (debited),
// price × quantity − fee for a sell (credited).
func (o Order) Total() Money {
	v := o.Price.Times(o.Quantity)
	if o.Type == Buy {
		return v + o.Fee
	}
	return v - o.Fee
}

// Quote is the market data of one symbol.
type Quote struct {
	Symbol      string `json:"symbol"`
	CompanyName string `json:"companyName"`
	Price       Money  `json:"price"`
	Open        Money  `json:"open"`
	Low         Money  `json:"low"`
	High        Money  `json:"high"`
	Change      Money  `json:"change"` // price - open
	Volume      int64  `json:"volume"`
}

// MarketSummary is the market index page's data.
type MarketSummary struct {
	TSIA       Money     `json:"tsia"`
	OpenTSIA   Money     `json:"openTSIA"`
	Volume     int64     `json:"volume"`
	TopGainers []Quote   `json:"topGainers"`
	TopLosers  []Quote   `json:"topLosers"`
	Date       time.Time `json:"date"`
}

// GainPercent is (TSIA - openTSIA) / openTSIA as a percentage rounded to hundredths, for display.
func (m MarketSummary) GainPercent() string {
	if m.OpenTSIA == 0 {
		return "0.00"
	}
	// basis points, exact integer math
	bp := (int64(m.TSIA-m.OpenTSIA) * 10000) / int64(m.OpenTSIA)
	return Money(bp).String()
}
