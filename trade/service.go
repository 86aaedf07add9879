package trade

import "context"

// DefaultOrdersLimit caps GetOrders when the caller passes limit <= 0 (the account page's list).
const DefaultOrdersLimit = 100

// MaxOrdersLimit bounds what a caller may ask GetOrders for.
const MaxOrdersLimit = 1000

// RegisterRequest is a new user's registration.
type RegisterRequest struct {
	UserID      string `json:"userID"`
	Password    string `json:"password"`
	FullName    string `json:"fullName"`
	Address     string `json:"address"`
	Email       string `json:"email"`
	CreditCard  string `json:"creditCard"`
	OpenBalance Money  `json:"openBalance"`
}

// Service is the business services contract of Trade 6.1 / StockTrader. The web tier depends
// only on this interface: the in-process implementation and every remote client (SOAP, REST,
// gRPC) implement it, so a page cannot tell where the service runs.
//
// Errors a user can cause are *Error values (see errors.go); any other error is a system fault.
type Service interface {
	Login(ctx context.Context, userID, password string) (Account, error)
	Logout(ctx context.Context, userID string) error
	Register(ctx context.Context, r RegisterRequest) (Account, error)

	GetAccountData(ctx context.Context, userID string) (Account, error)
	GetAccountProfileData(ctx context.Context, userID string) (AccountProfile, error)
	// UpdateAccountProfile changes full name, address, email, credit card and, when non-empty,
	// the password of p.UserID.
	UpdateAccountProfile(ctx context.Context, p AccountProfile) (AccountProfile, error)

	GetHoldings(ctx context.Context, userID string) ([]Holding, error)
	// GetHolding returns a holding of userID; another user's holding is ErrNotFound, as a
	// holding that does not exist (telling them apart would reveal other users' holding ids).
	GetHolding(ctx context.Context, userID string, holdingID int64) (Holding, error)
	// GetOrders returns the most recent orders first, at most limit (DefaultOrdersLimit if <= 0).
	GetOrders(ctx context.Context, userID string, limit int) ([]Order, error)
	// GetClosedOrders returns the orders closed since last shown and marks them completed, so
	// each closed-order alert is shown once.
	GetClosedOrders(ctx context.Context, userID string) ([]Order, error)

	GetQuote(ctx context.Context, symbol string) (Quote, error)
	GetQuotes(ctx context.Context, symbols []string) ([]Quote, error)
	GetMarketSummary(ctx context.Context) (MarketSummary, error)

	// Buy places a buy order of quantity shares. In sync order mode the returned order is
	// already closed; in async modes it is open and completes later.
	Buy(ctx context.Context, userID, symbol string, quantity int64) (Order, error)
	// Sell places a sell order for a holding of userID; quantity 0 sells the whole holding.
	Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (Order, error)
}

// OrderProcessor completes placed orders: price, fee, holding, balance, quote price and volume.
// Completing an order that is already final is a no-op that returns it unchanged, so a
// redelivered message cannot apply an order twice.
type OrderProcessor interface {
	CompleteOrder(ctx context.Context, orderID int64) (Order, error)
}

// AccountWithProfileGetter is what a Service may offer besides the contract: the account and
// its profile read together, which is what the account page shows. The in-process service reads
// both in one statement; a remote client need not offer it, and GetAccountWithProfile then makes
// the two contract calls, so every transport serves the page the same.
type AccountWithProfileGetter interface {
	GetAccountWithProfile(ctx context.Context, userID string) (Account, AccountProfile, error)
}

// GetAccountWithProfile returns the account of userID and its profile (never the password):
// in one call where svc offers AccountWithProfileGetter, else as GetAccountData and
// GetAccountProfileData.
func GetAccountWithProfile(ctx context.Context, svc Service, userID string) (Account, AccountProfile, error) {
	if g, ok := svc.(AccountWithProfileGetter); ok {
		return g.GetAccountWithProfile(ctx, userID)
	}
	a, err := svc.GetAccountData(ctx, userID)
	if err != nil {
		return Account{}, AccountProfile{}, err
	}
	p, err := svc.GetAccountProfileData(ctx, userID)
	if err != nil {
		return Account{}, AccountProfile{}, err
	}
	return a, p, nil
}

// OrdersWithClosedGetter is, like AccountWithProfileGetter, an offer besides the contract: what
// the account page asks for its orders, GetClosedOrders (the alerts, which it marks completed)
// and then GetOrders, in one call. The in-process service reads both in one statement and
// writes only when something was closed; the listed orders then show the alerted ones completed,
// as GetOrders after GetClosedOrders would.
type OrdersWithClosedGetter interface {
	GetOrdersWithClosed(ctx context.Context, userID string, limit int) (orders, closed []Order, err error)
}

// GetOrdersWithClosed returns OrdersWithClosedGetter's answer: in one call where svc offers it,
// else as GetClosedOrders and then GetOrders.
func GetOrdersWithClosed(ctx context.Context, svc Service, userID string, limit int) (orders, closed []Order, err error) {
	if g, ok := svc.(OrdersWithClosedGetter); ok {
		return g.GetOrdersWithClosed(ctx, userID, limit)
	}
	if closed, err = svc.GetClosedOrders(ctx, userID); err != nil {
		return nil, nil, err
	}
	if orders, err = svc.GetOrders(ctx, userID, limit); err != nil {
		return nil, nil, err
	}
	return orders, closed, nil
}

// RegisterLoginer is an offer besides the contract: Register and then Login of the new account
// with the same password, as DayTrader's registration does, in one call. The in-process
// service hashes the password once and creates the account logged in (one login counted),
// instead of hashing the password and then verifying it against the hash it has just made: the
// second bcrypt of a registration was half of its cost and about 3 % of DayTrader's mix.
type RegisterLoginer interface {
	RegisterAndLogin(ctx context.Context, r RegisterRequest) (Account, error)
}

// RegisterAndLogin returns RegisterLoginer's answer: in one call where svc offers it, else as
// Register and then Login (whose failed-login throttle then applies to the new user id too).
func RegisterAndLogin(ctx context.Context, svc Service, r RegisterRequest) (Account, error) {
	if g, ok := svc.(RegisterLoginer); ok {
		return g.RegisterAndLogin(ctx, r)
	}
	a, err := svc.Register(ctx, r)
	if err != nil {
		return Account{}, err
	}
	return svc.Login(ctx, a.UserID, r.Password)
}

// AccountPage is what the account page shows: the account, its profile (never the password),
// the most recent orders (most recent first) and the alerts, the orders closed since last shown
// (oldest first), which showing marks completed; an alerted order is listed completed too.
type AccountPage struct {
	Account        Account
	Profile        AccountProfile
	Orders, Closed []Order
}

// AccountPageGetter is, like AccountWithProfileGetter, an offer besides the contract: the whole
// account page in one call. The in-process service reads it in one statement and writes only
// when something was closed.
type AccountPageGetter interface {
	GetAccountPage(ctx context.Context, userID string, limit int) (AccountPage, error)
}

// GetAccountPage returns AccountPageGetter's answer: in one call where svc offers it, else as
// GetAccountWithProfile and then GetOrdersWithClosed (each in one call where offered).
func GetAccountPage(ctx context.Context, svc Service, userID string, limit int) (AccountPage, error) {
	if g, ok := svc.(AccountPageGetter); ok {
		return g.GetAccountPage(ctx, userID, limit)
	}
	var pg AccountPage
	var err error
	if pg.Account, pg.Profile, err = GetAccountWithProfile(ctx, svc, userID); err != nil {
		return AccountPage{}, err
	}
	if pg.Orders, pg.Closed, err = GetOrdersWithClosed(ctx, svc, userID, limit); err != nil {
		return AccountPage{}, err
	}
	return pg, nil
}

// HoldingsSummary is what the home page shows of a user's holdings: how many, and their
// purchase basis (the sum of purchase price × quantity), exact.
type HoldingsSummary struct {
	Count int
	Basis Money
}

// AccountSummaryGetter is, like AccountWithProfileGetter, an offer besides the contract: the
// account of userID and the summary of its holdings, read together, which is what the home page
// shows. The in-process service reads both in one statement, so the figures are one snapshot.
type AccountSummaryGetter interface {
	GetAccountSummary(ctx context.Context, userID string) (Account, HoldingsSummary, error)
}

// GetAccountSummary returns AccountSummaryGetter's answer: in one call where svc offers it, else
// as GetAccountData and GetHoldings, summed here.
func GetAccountSummary(ctx context.Context, svc Service, userID string) (Account, HoldingsSummary, error) {
	if g, ok := svc.(AccountSummaryGetter); ok {
		return g.GetAccountSummary(ctx, userID)
	}
	a, err := svc.GetAccountData(ctx, userID)
	if err != nil {
		return Account{}, HoldingsSummary{}, err
	}
	hs, err := svc.GetHoldings(ctx, userID)
	if err != nil {
		return Account{}, HoldingsSummary{}, err
	}
	return a, SummarizeHoldings(hs), nil
}

// SummarizeHoldings is the HoldingsSummary of hs.
func SummarizeHoldings(hs []Holding) HoldingsSummary {
	s := HoldingsSummary{Count: len(hs)}
	for _, h := range hs {
		s.Basis += h.PurchasePrice.Times(h.Quantity)
	}
	return s
}

// HoldingsWithQuotesGetter is, like AccountWithProfileGetter, an offer besides the contract:
// the holdings of userID with, at the same index, the quote of each one's symbol (the zero
// Quote when there is none), which is what the portfolio page shows; the in-process service
// reads them in one statement.
type HoldingsWithQuotesGetter interface {
	GetHoldingsWithQuotes(ctx context.Context, userID string) ([]Holding, []Quote, error)
}

// GetHoldingsWithQuotes returns HoldingsWithQuotesGetter's answer: in one call where svc
// offers it, else as GetHoldings and GetQuotes of the holdings' symbols.
func GetHoldingsWithQuotes(ctx context.Context, svc Service, userID string) ([]Holding, []Quote, error) {
	if g, ok := svc.(HoldingsWithQuotesGetter); ok {
		return g.GetHoldingsWithQuotes(ctx, userID)
	}
	hs, err := svc.GetHoldings(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	var syms []string
	seen := map[string]bool{}
	for _, h := range hs {
		if !seen[h.Symbol] {
			seen[h.Symbol] = true
			syms = append(syms, h.Symbol)
		}
	}
	by := map[string]Quote{}
	if len(syms) > 0 {
		found, err := svc.GetQuotes(ctx, syms)
		if err != nil {
			return nil, nil, err
		}
		for _, q := range found {
			by[q.Symbol] = q
		}
	}
	qs := make([]Quote, len(hs))
	for i, h := range hs {
		qs[i] = by[h.Symbol]
	}
	return hs, qs, nil
}
