package business

import (
	"context"
	"errors"
	"fmt"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// Buy places a buy order; see the package comment for sync and async modes.
func (s *Service) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return trade.Order{}, err
	}
	if err := trade.ValidateSymbol(symbol); err != nil {
		return trade.Order{}, err
	}
	if err := trade.ValidateQuantity(quantity, false); err != nil {
		return trade.Order{}, err
	}
	return once(ctx, s, trade.KindBuy, userID, s.keyedOrder, func(claim claimFunc) (trade.Order, error) {
		return s.buy(ctx, userID, symbol, quantity, claim)
	})
}

// keyedOrder is the order a keyed buy or sell placed, as it is now.
func (s *Service) keyedOrder(ctx context.Context, k trade.RequestKey) (trade.Order, error) {
	return s.st.Order(ctx, k.OrderID)
}

// buy places the order in one transaction that claim joins.
func (s *Service) buy(ctx context.Context, userID, symbol string, quantity int64, claim claimFunc) (trade.Order, error) {
	var o trade.Order
	var q trade.Quote
	err := s.st.Update(ctx, func(tx store.Tx) error {
		a, err := s.lockOrRead(ctx, tx, userID)
		if err != nil {
			return err
		}
		if q, err = s.quoteOrLock(ctx, tx, symbol); err != nil {
			return err
		}
		o = trade.Order{AccountID: a.AccountID, Symbol: symbol, Type: trade.Buy, Status: trade.StatusOpen,
			OpenDate: now(), Quantity: quantity, Price: q.Price, Fee: trade.OrderFee}
		// In sync mode the account row is locked, so this check and the debit are one step
		// and concurrent buys cannot overdraw. An async order is checked again, under the
		// lock, when it completes (apply), and cancelled there if the money has gone.
		if err := checkFunds(a, o); err != nil {
			return err
		}
		if err := s.place(ctx, tx, &o, &a, &q); err != nil {
			return err
		}
		return claim(tx, o.OrderID)
	})
	if err != nil {
		return trade.Order{}, err
	}
	s.moved(o, q)
	s.placed(o)
	return o, s.dispatch(ctx, o)
}

// Sell places a sell order for a holding of userID; quantity 0 sells the whole holding.
func (s *Service) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return trade.Order{}, err
	}
	if err := trade.ValidateQuantity(quantity, true); err != nil {
		return trade.Order{}, err
	}
	return once(ctx, s, trade.KindSell, userID, s.keyedOrder, func(claim claimFunc) (trade.Order, error) {
		return s.sell(ctx, userID, holdingID, quantity, claim)
	})
}

// sell places the order in one transaction that claim joins.
func (s *Service) sell(ctx context.Context, userID string, holdingID int64, quantity int64, claim claimFunc) (trade.Order, error) {
	var o trade.Order
	var q trade.Quote
	err := s.st.Update(ctx, func(tx store.Tx) error {
		a, err := s.lockOrRead(ctx, tx, userID)
		if err != nil {
			return err
		}
		// The account lock keeps the account's holdings stable from here on in sync mode.
		h, err := s.ownHolding(ctx, tx, a, holdingID)
		if err != nil {
			return err
		}
		qty := quantity
		if qty == 0 {
			qty = h.Quantity
		}
		if qty > h.Quantity {
			return trade.Errorf(trade.CodeInvalid, "cannot sell %d shares of holding %d: it has %d", qty, holdingID, h.Quantity)
		}
		if q, err = s.quoteOrLock(ctx, tx, h.Symbol); err != nil {
			return err
		}
		o = trade.Order{AccountID: a.AccountID, HoldingID: h.HoldingID, Symbol: h.Symbol, Type: trade.Sell,
			Status: trade.StatusOpen, OpenDate: now(), Quantity: qty, Price: q.Price, Fee: trade.OrderFee}
		// As for Buy: one step with the debit under the account lock in sync mode, checked
		// again at completion (apply) in the async modes.
		if err := checkFunds(a, o); err != nil {
			return err
		}
		if err := s.place(ctx, tx, &o, &a, &q); err != nil {
			return err
		}
		return claim(tx, o.OrderID)
	})
	if err != nil {
		return trade.Order{}, err
	}
	s.moved(o, q)
	s.placed(o)
	return o, s.dispatch(ctx, o)
}

func (s *Service) sync() bool { return s.opts.Dispatch == nil }

// moved publishes q if order o was executed (closed) and so moved it; an open order (async
// modes) moves its quote when it completes, and a cancelled sell moves nothing.
func (s *Service) moved(o trade.Order, q trade.Quote) {
	if s.opts.Quotes != nil && o.Status == trade.StatusClosed {
		s.opts.Quotes.PublishQuote(q)
	}
}

// checkFunds refuses an order that would leave the balance negative: a buy whose cost plus
// fee exceeds the balance, and a sell whose proceeds are below the fee by more than the
// balance (1 share at $1.01 sold for $24.95 of fee took a $30 account to −$19.99).
// (trade.MaxQuantity and the price rules keep the cost far from overflowing Money.)
func checkFunds(a trade.Account, o trade.Order) error {
	switch o.Type {
	case trade.Buy:
		if cost := o.Total(); cost > a.Balance {
			return trade.Errorf(trade.CodeInsufficientFunds, "insufficient funds: balance $%s, order costs $%s", a.Balance, cost)
		}
	case trade.Sell:
		if net := o.Total(); a.Balance+net < 0 {
			return trade.Errorf(trade.CodeInsufficientFunds, "insufficient funds: balance $%s, the sale's proceeds $%s do not cover the $%s fee",
				a.Balance, o.Price.Times(o.Quantity), o.Fee)
		}
	}
	return nil
}

// lockOrRead: a sync order changes the account now, so it locks it; placing an async order
// only needs to know the account.
func (s *Service) lockOrRead(ctx context.Context, tx store.Tx, userID string) (trade.Account, error) {
	if !s.sync() {
		return s.account(ctx, tx, userID)
	}
	a, err := tx.LockAccount(ctx, userID)
	return a, missing(err, "no user %q", userID)
}

func (s *Service) quoteOrLock(ctx context.Context, tx store.Tx, symbol string) (trade.Quote, error) {
	var q trade.Quote
	var err error
	if s.sync() {
		q, err = tx.LockQuote(ctx, symbol)
	} else {
		q, err = tx.Quote(ctx, symbol)
	}
	return q, missing(err, "no quote for symbol %q", symbol)
}

// place records a new order: completed at once in sync mode, open otherwise.
func (s *Service) place(ctx context.Context, tx store.Tx, o *trade.Order, a *trade.Account, q *trade.Quote) error {
	if s.sync() {
		if err := s.apply(ctx, tx, o, a, q); err != nil {
			return err
		}
	}
	id, err := tx.CreateOrder(ctx, *o)
	o.OrderID = id
	return err
}

// placed tells the observer of a committed new order (and, in sync mode, that it is final).
func (s *Service) placed(o trade.Order) {
	if ob := s.opts.Observe; ob != nil {
		ob.Placed(o)
		if o.Status.Final() {
			ob.Finished(o)
		}
	}
}

func (s *Service) dispatch(ctx context.Context, o trade.Order) error {
	if s.sync() {
		return nil
	}
	if err := s.opts.Dispatch.Dispatch(ctx, o); err != nil {
		return fmt.Errorf("order %d was placed but could not be handed to the order processor: %w", o.OrderID, err)
	}
	return nil
}

// CompleteOrder completes an open order (the order processor's step). Completing a final
// order is a no-op that returns it, so a redelivered message cannot apply an order twice.
func (s *Service) CompleteOrder(ctx context.Context, orderID int64) (trade.Order, error) {
	var out trade.Order
	var q trade.Quote
	var applied bool // by this call: a redelivery of a final order is not reported again
	err := s.st.Update(ctx, func(tx store.Tx) error {
		applied = false // a retried transaction starts over
		o, err := tx.Order(ctx, orderID)
		if err != nil {
			return missing(err, "no order %d", orderID)
		}
		if o.Status.Final() {
			out = o
			return nil
		}
		// Lock order: account, order, quote, holding (see package store).
		a, err := tx.LockAccountByID(ctx, o.AccountID)
		if err != nil {
			return err
		}
		if o, err = tx.LockOrder(ctx, orderID); err != nil {
			return err
		}
		if o.Status.Final() { // completed meanwhile by another processor
			out = o
			return nil
		}
		if q, err = tx.LockQuote(ctx, o.Symbol); err != nil {
			return err
		}
		if err := s.apply(ctx, tx, &o, &a, &q); err != nil {
			return err
		}
		out, applied = o, true
		return tx.UpdateOrder(ctx, o)
	})
	if err == nil && applied {
		s.moved(out, q)
	}
	if err == nil && applied && s.opts.Observe != nil {
		s.opts.Observe.Finished(out)
	}
	return out, err
}

// apply completes an order in memory and writes its effects: the holding, the balance and
// the quote's price and volume. A sell whose holding is gone or too small (sold by another
// order meanwhile) is cancelled and moves nothing.
func (s *Service) apply(ctx context.Context, tx store.Tx, o *trade.Order, a *trade.Account, q *trade.Quote) error {
	t := now()
	if err := checkFunds(*a, *o); err != nil {
		// only an async order gets here short of money (sync Buy and Sell checked first): the
		// balance went to other orders since it was placed
		o.Status, o.CompletionDate = trade.StatusCancelled, t
		if s.opts.OnCancel != nil {
			s.opts.OnCancel(*o, err.Error())
		}
		return nil
	}
	switch o.Type {
	case trade.Buy:
		id, err := tx.CreateHolding(ctx, trade.Holding{AccountID: a.AccountID, Symbol: o.Symbol, Quantity: o.Quantity,
			PurchasePrice: o.Price, PurchaseDate: t})
		if err != nil {
			return err
		}
		o.HoldingID = id
		a.Balance -= o.Total()
	case trade.Sell:
		h, err := tx.LockHolding(ctx, o.HoldingID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (h.AccountID != a.AccountID || h.Quantity < o.Quantity)) {
			o.Status, o.CompletionDate = trade.StatusCancelled, t
			return nil
		}
		if err != nil {
			return err
		}
		if h.Quantity == o.Quantity {
			err = tx.DeleteHolding(ctx, h.HoldingID)
		} else {
			err = tx.SetHoldingQuantity(ctx, h.HoldingID, h.Quantity-o.Quantity)
		}
		if err != nil {
			return err
		}
		a.Balance += o.Total()
	default:
		return fmt.Errorf("order %d has unknown type %q", o.OrderID, o.Type)
	}
	q.Price = trade.NewPrice(q.Price, s.priceChange())
	q.Change = q.Price - q.Open
	q.Low, q.High = min(q.Low, q.Price), max(q.High, q.Price)
	q.Volume += o.Quantity
	if err := tx.UpdateQuote(ctx, *q); err != nil {
		return err
	}
	if err := tx.UpdateAccount(ctx, *a); err != nil {
		return err
	}
	o.Status, o.CompletionDate = trade.StatusClosed, t
	return nil
}

// ownHolding reads holding holdingID of account a, for GetHolding and a sell; another
// account's holding is answered as one that does not exist.
func (s *Service) ownHolding(ctx context.Context, r store.Reader, a trade.Account, holdingID int64) (trade.Holding, error) {
	if holdingID <= 0 {
		return trade.Holding{}, trade.Errorf(trade.CodeInvalid, "holding id must be a positive number, got %d", holdingID)
	}
	h, err := r.Holding(ctx, holdingID)
	if err == nil && h.AccountID != a.AccountID {
		// answered as if it did not exist: "forbidden" told a stranger which ids are someone's
		err = store.ErrNotFound
	}
	if err != nil {
		return trade.Holding{}, missing(err, "no holding %d", holdingID)
	}
	return h, nil
}
