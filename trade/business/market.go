package business

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// GetQuote returns the quote of symbol.
func (s *Service) GetQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	if err := trade.ValidateSymbol(symbol); err != nil {
		return trade.Quote{}, err
	}
	q, err := s.st.Quote(ctx, symbol)
	return q, missing(err, "no quote for symbol %q", symbol)
}

// GetQuotes returns the quotes of symbols in the order asked; an unknown symbol is
// CodeNotFound naming it.
func (s *Service) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	if len(symbols) > trade.MaxSymbols {
		return nil, trade.Errorf(trade.CodeInvalid, "at most %d symbols at once, got %d", trade.MaxSymbols, len(symbols))
	}
	for _, sym := range symbols {
		if err := trade.ValidateSymbol(sym); err != nil {
			return nil, err
		}
	}
	found, err := s.st.Quotes(ctx, symbols)
	if err != nil {
		return nil, err
	}
	by := make(map[string]trade.Quote, len(found))
	for _, q := range found {
		by[q.Symbol] = q
	}
	out := make([]trade.Quote, 0, len(symbols))
	for _, sym := range symbols {
		q, ok := by[sym]
		if !ok {
			return nil, trade.Errorf(trade.CodeNotFound, "no quote for symbol %q", sym)
		}
		out = append(out, q)
	}
	return out, nil
}

// GetMarketSummary returns the market summary, cached for Options.MarketSummaryTTL.
//
// As Trade 6.1 (TradeDirect/MarketSummaryDataBean) computes it, over the index quotes
// s:100…s:199 (SQL: symbol LIKE 's:1__'): TSIA is the average price, openTSIA the average
// opening price, volume the sum of volumes, and the top 5 gainers and losers are the first
// five by change (price - open) descending and ascending (ties by symbol). A data set with
// fewer than 101 quotes has no index quotes, and the summary is all zero, as in Trade.
func (s *Service) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	ttl := s.opts.MarketSummaryTTL
	if ttl <= 0 {
		return s.marketSummary(ctx)
	}
	s.msMu.Lock()
	if time.Now().Before(s.msExp) {
		m := s.ms
		s.msMu.Unlock()
		return cloneSummary(m), nil
	}
	s.msMu.Unlock()
	// One computation for all concurrent misses, detached from any one caller's cancellation.
	ch := s.sf.DoChan("ms", func() (any, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		m, err := s.marketSummary(cctx)
		if err == nil {
			s.msMu.Lock()
			s.ms, s.msExp = m, time.Now().Add(ttl)
			s.msMu.Unlock()
		}
		return m, err
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return trade.MarketSummary{}, r.Err
		}
		return cloneSummary(r.Val.(trade.MarketSummary)), nil
	case <-ctx.Done():
		return trade.MarketSummary{}, ctx.Err()
	}
}

func cloneSummary(m trade.MarketSummary) trade.MarketSummary {
	m.TopGainers, m.TopLosers = slices.Clone(m.TopGainers), slices.Clone(m.TopLosers)
	return m
}

func (s *Service) marketSummary(ctx context.Context) (trade.MarketSummary, error) {
	qs, err := s.st.IndexQuotes(ctx)
	if err != nil {
		return trade.MarketSummary{}, err
	}
	return Summarize(qs, now()), nil
}

// Summarize computes a market summary from the index quotes (see GetMarketSummary).
func Summarize(qs []trade.Quote, at time.Time) trade.MarketSummary {
	m := trade.MarketSummary{Date: at, TopGainers: []trade.Quote{}, TopLosers: []trade.Quote{}}
	if len(qs) == 0 {
		return m
	}
	var price, open trade.Money
	for _, q := range qs {
		price += q.Price
		open += q.Open
		m.Volume += q.Volume
	}
	n := trade.Money(len(qs))
	m.TSIA, m.OpenTSIA = (price+n/2)/n, (open+n/2)/n // prices are positive: rounds half up
	byChange := slices.Clone(qs)
	sort.Slice(byChange, func(i, j int) bool {
		if byChange[i].Change != byChange[j].Change {
			return byChange[i].Change > byChange[j].Change
		}
		return byChange[i].Symbol < byChange[j].Symbol
	})
	k := min(5, len(byChange))
	m.TopGainers = slices.Clone(byChange[:k])
	sort.SliceStable(byChange, func(i, j int) bool { return byChange[i].Change < byChange[j].Change })
	m.TopLosers = slices.Clone(byChange[:k])
	return m
}
