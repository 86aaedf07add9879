package business

import (
	"context"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// GetHoldings returns the holdings of userID, oldest first.
func (s *Service) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	if err := checkUser(userID); err != nil {
		return nil, err
	}
	hs, err := s.st.UserHoldings(ctx, userID)
	if err != nil {
		return nil, missing(err, "no user %q", userID)
	}
	return hs, nil
}

// GetHoldingsWithQuotes returns the holdings of userID, oldest first, each with its symbol's
// quote at the same index (trade.HoldingsWithQuotesGetter), in one statement.
func (s *Service) GetHoldingsWithQuotes(ctx context.Context, userID string) ([]trade.Holding, []trade.Quote, error) {
	if err := checkUser(userID); err != nil {
		return nil, nil, err
	}
	hs, qs, err := s.st.UserHoldingsWithQuotes(ctx, userID)
	if err != nil {
		return nil, nil, missing(err, "no user %q", userID)
	}
	return hs, qs, nil
}

// GetHolding returns one holding of userID; another user's holding is CodeNotFound, the same
// answer as a holding that does not exist (ownHolding).
func (s *Service) GetHolding(ctx context.Context, userID string, holdingID int64) (trade.Holding, error) {
	a, err := s.account(ctx, s.st, userID)
	if err != nil {
		return trade.Holding{}, err
	}
	return s.ownHolding(ctx, s.st, a, holdingID)
}

// GetOrders returns the most recent orders first, at most limit (trade.DefaultOrdersLimit if
// limit <= 0, never more than trade.MaxOrdersLimit).
func (s *Service) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = trade.DefaultOrdersLimit
	}
	os, err := s.st.UserOrders(ctx, userID, min(limit, trade.MaxOrdersLimit))
	if err != nil {
		return nil, missing(err, "no user %q", userID)
	}
	return os, nil
}

// GetClosedOrders returns the orders closed since last shown (status closed) and marks them
// completed, so each alert is shown once even to concurrent callers.
func (s *Service) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return nil, err
	}
	// The common case, nothing closed, is indexed reads and no write transaction.
	pending, err := s.st.UserClosedOrders(ctx, userID)
	if err != nil {
		return nil, missing(err, "no user %q", userID)
	}
	if len(pending) == 0 {
		return []trade.Order{}, nil
	}
	return s.completeClosed(ctx, pending[0].AccountID)
}

// completeClosed marks the account's closed orders completed and returns them as they were
// (status closed), oldest first.
func (s *Service) completeClosed(ctx context.Context, accountID int64) ([]trade.Order, error) {
	var out []trade.Order
	err := s.st.Update(ctx, func(tx store.Tx) error {
		var err error
		out, err = tx.CompleteClosedOrders(ctx, accountID)
		return err
	})
	if out == nil && err == nil {
		out = []trade.Order{}
	}
	return out, err
}

// GetOrdersWithClosed is GetClosedOrders and then GetOrders (trade.OrdersWithClosedGetter): the
// orders of GetAccountPage.
func (s *Service) GetOrdersWithClosed(ctx context.Context, userID string, limit int) ([]trade.Order, []trade.Order, error) {
	pg, err := s.GetAccountPage(ctx, userID, limit)
	if err != nil {
		return nil, nil, err
	}
	return pg.Orders, pg.Closed, nil
}

// GetAccountPage is GetAccountWithProfile, GetClosedOrders and then GetOrders
// (trade.AccountPageGetter): one statement reads them all, and only when something was closed
// does a write transaction complete it; the listed orders then show those completed, as a read
// after the write would.
func (s *Service) GetAccountPage(ctx context.Context, userID string, limit int) (trade.AccountPage, error) {
	if err := checkUser(userID); err != nil {
		return trade.AccountPage{}, err
	}
	if limit <= 0 {
		limit = trade.DefaultOrdersLimit
	}
	pg, err := s.st.UserAccountPage(ctx, userID, min(limit, trade.MaxOrdersLimit))
	if err != nil {
		return trade.AccountPage{}, missing(err, "no user %q", userID)
	}
	pending := pg.Closed
	if len(pending) == 0 {
		return pg, nil
	}
	closed, err := s.completeClosed(ctx, pg.Account.AccountID)
	if err != nil {
		return trade.AccountPage{}, err
	}
	pg.Closed = closed
	// every order closed when read, or completed by the write, is completed now (by this
	// call or a concurrent one: a closed order only ever becomes completed)
	done := make(map[int64]bool, len(pending)+len(closed))
	for _, o := range pending {
		done[o.OrderID] = true
	}
	for _, o := range closed {
		done[o.OrderID] = true
	}
	for i := range pg.Orders {
		if done[pg.Orders[i].OrderID] {
			pg.Orders[i].Status = trade.StatusCompleted
		}
	}
	return pg, nil
}
