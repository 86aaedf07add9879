package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/web"
)

// remoteDataSet is the data set a web tier without a database serves, found by asking its
// services host: the loader names accounts uid:0… and quotes s:0… without gaps, so the first
// missing id counts them. config.json reports it so that a drive against the web tier (or a
// load balancer in front of several) sizes its scenario as it does against the monolith,
// instead of failing its first login until the user says the size with --set.
type remoteDataSet struct {
	mu    sync.Mutex
	found *web.ConfigDataSet
	tried time.Time // the last attempt that found nothing (the host may be down: retried later)
}

// remoteDataSetRetry is how long after a failed attempt the next may ask the services host.
const remoteDataSetRetry = 5 * time.Second

// get returns the data set, asking svc the first time (and again after a failed attempt once
// remoteDataSetRetry has passed); nil while it is not known.
func (r *remoteDataSet) get(svc trade.Service) *web.ConfigDataSet {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.found != nil || (!r.tried.IsZero() && time.Since(r.tried) < remoteDataSetRetry) {
		return r.found
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	accounts, quotes, err := probeDataSet(ctx, svc)
	if err != nil || accounts == 0 || quotes == 0 {
		r.tried = time.Now()
		return nil
	}
	r.found = &web.ConfigDataSet{Accounts: accounts, Quotes: quotes}
	return r.found
}

// probeDataSet counts the accounts uid:0… and the quotes s:0… svc holds.
func probeDataSet(ctx context.Context, svc trade.Service) (accounts, quotes int, err error) {
	accounts, err = contiguous(func(i int) error { _, err := svc.GetAccountData(ctx, dataset.UserID(i)); return err })
	if err != nil {
		return 0, 0, err
	}
	quotes, err = contiguous(func(i int) error { _, err := svc.GetQuote(ctx, dataset.Symbol(i)); return err })
	return accounts, quotes, err
}

// maxProbed bounds the ids contiguous tries: far beyond any data set the loader makes.
const maxProbed = 1 << 30

// contiguous returns n such that lookup finds ids 0…n-1 and not n, in about 2·log₂ n lookups
// (doubling, then bisection); an error other than "not found" ends it.
func contiguous(lookup func(i int) error) (int, error) {
	exists := func(i int) (bool, error) {
		err := lookup(i)
		if err == nil {
			return true, nil
		}
		if errors.Is(err, trade.ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	ok, err := exists(0)
	if err != nil || !ok {
		return 0, err
	}
	lo, hi := 0, 1 // lo exists; hi is the next candidate, then the first known missing
	for {
		ok, err := exists(hi)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		lo, hi = hi, hi*2
		if hi > maxProbed {
			return 0, fmt.Errorf("more than %d ids", maxProbed)
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := exists(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1, nil
}
