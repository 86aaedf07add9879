package business

import (
	"context"
	"errors"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// claimFunc stores the call's key in tx with the order the call placed (0 for none); it does
// nothing for a call without a key.
type claimFunc func(tx store.Tx, orderID int64) error

// once runs do, a state-changing operation of userID, at most once per idempotency key
// (trade.IdempotencyKeyOf ctx): do calls claim inside its transaction, and a key the store
// already holds — stored by an earlier request, or by a concurrent one that committed first —
// is answered with outcome, the first request's effect as it is now, and nothing is placed.
// A key another user's request (or another kind of request) used is CodeConflict. A call
// without a key runs do alone: DayTrader's URLs carry none.
//
// The store's unique key decides between two concurrent requests (store.Tx.ClaimKey): the
// look-up first only spares a replay the work, and the look-up after a failure finds the
// winner's outcome when the loser failed for it (the claim refused, the holding already sold,
// the user id already taken).
func once[T any](ctx context.Context, s *Service, kind trade.RequestKind, userID string,
	outcome func(context.Context, trade.RequestKey) (T, error), do func(claim claimFunc) (T, error)) (T, error) {
	key := trade.IdempotencyKeyOf(ctx)
	if key == "" {
		return do(func(store.Tx, int64) error { return nil })
	}
	var zero T
	if err := trade.ValidateIdempotencyKey(key); err != nil {
		return zero, err
	}
	if v, found, err := replay(ctx, s, key, kind, userID, outcome); found || err != nil {
		return v, err
	}
	v, err := do(func(tx store.Tx, orderID int64) error {
		return tx.ClaimKey(ctx, trade.RequestKey{Key: key, Kind: kind, UserID: userID, OrderID: orderID})
	})
	if err == nil {
		return v, nil
	}
	w, found, rerr := replay(ctx, s, key, kind, userID, outcome)
	var de *trade.Error
	switch {
	case found && rerr == nil:
		return w, nil
	case errors.As(rerr, &de): // the key is another request's
		return zero, rerr
	}
	return zero, err
}

// replay looks key up: found, the first request's outcome.
func replay[T any](ctx context.Context, s *Service, key string, kind trade.RequestKind, userID string,
	outcome func(context.Context, trade.RequestKey) (T, error)) (v T, found bool, err error) {
	k, err := s.st.RequestKey(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	if k.Kind != kind || k.UserID != userID {
		return v, false, trade.Errorf(trade.CodeConflict, "idempotency key %q was used by another request", key)
	}
	v, err = outcome(ctx, k)
	return v, true, err
}
