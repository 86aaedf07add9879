package grpcapi

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tradebench/tradebench/trade"
	pb "github.com/tradebench/tradebench/trade/remote/tradepb"
)

// Conversions between the domain model and the protobuf messages. Money crosses as int64 cents;
// a zero time crosses as an absent timestamp.

func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

func fromTS(t *timestamppb.Timestamp) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.AsTime()
}

func toAccount(a trade.Account) *pb.Account {
	return &pb.Account{
		AccountId:        a.AccountID,
		UserId:           a.UserID,
		BalanceCents:     int64(a.Balance),
		OpenBalanceCents: int64(a.OpenBalance),
		CreationDate:     ts(a.CreationDate),
		LastLogin:        ts(a.LastLogin),
		LoginCount:       a.LoginCount,
		LogoutCount:      a.LogoutCount,
	}
}

func fromAccount(a *pb.Account) trade.Account {
	return trade.Account{
		AccountID:    a.GetAccountId(),
		UserID:       a.GetUserId(),
		Balance:      trade.Money(a.GetBalanceCents()),
		OpenBalance:  trade.Money(a.GetOpenBalanceCents()),
		CreationDate: fromTS(a.GetCreationDate()),
		LastLogin:    fromTS(a.GetLastLogin()),
		LoginCount:   a.GetLoginCount(),
		LogoutCount:  a.GetLogoutCount(),
	}
}

func toProfile(p trade.AccountProfile) *pb.AccountProfile {
	return &pb.AccountProfile{
		UserId:     p.UserID,
		Password:   p.Password,
		FullName:   p.FullName,
		Address:    p.Address,
		Email:      p.Email,
		CreditCard: p.CreditCard,
	}
}

func fromProfile(p *pb.AccountProfile) trade.AccountProfile {
	return trade.AccountProfile{
		UserID:     p.GetUserId(),
		Password:   p.GetPassword(),
		FullName:   p.GetFullName(),
		Address:    p.GetAddress(),
		Email:      p.GetEmail(),
		CreditCard: p.GetCreditCard(),
	}
}

func toHolding(h trade.Holding) *pb.Holding {
	return &pb.Holding{
		HoldingId:          h.HoldingID,
		AccountId:          h.AccountID,
		Symbol:             h.Symbol,
		Quantity:           h.Quantity,
		PurchasePriceCents: int64(h.PurchasePrice),
		PurchaseDate:       ts(h.PurchaseDate),
	}
}

func fromHolding(h *pb.Holding) trade.Holding {
	return trade.Holding{
		HoldingID:     h.GetHoldingId(),
		AccountID:     h.GetAccountId(),
		Symbol:        h.GetSymbol(),
		Quantity:      h.GetQuantity(),
		PurchasePrice: trade.Money(h.GetPurchasePriceCents()),
		PurchaseDate:  fromTS(h.GetPurchaseDate()),
	}
}

var orderTypes = map[trade.OrderType]pb.OrderType{
	trade.Buy:  pb.OrderType_ORDER_TYPE_BUY,
	trade.Sell: pb.OrderType_ORDER_TYPE_SELL,
}

var orderStatuses = map[trade.OrderStatus]pb.OrderStatus{
	trade.StatusOpen:       pb.OrderStatus_ORDER_STATUS_OPEN,
	trade.StatusProcessing: pb.OrderStatus_ORDER_STATUS_PROCESSING,
	trade.StatusClosed:     pb.OrderStatus_ORDER_STATUS_CLOSED,
	trade.StatusCompleted:  pb.OrderStatus_ORDER_STATUS_COMPLETED,
	trade.StatusCancelled:  pb.OrderStatus_ORDER_STATUS_CANCELLED,
}

func toOrder(o trade.Order) (*pb.Order, error) {
	typ, ok := orderTypes[o.Type]
	if !ok {
		return nil, fmt.Errorf("order %d has unknown type %q", o.OrderID, o.Type)
	}
	st, ok := orderStatuses[o.Status]
	if !ok {
		return nil, fmt.Errorf("order %d has unknown status %q", o.OrderID, o.Status)
	}
	return &pb.Order{
		OrderId:        o.OrderID,
		AccountId:      o.AccountID,
		HoldingId:      o.HoldingID,
		Symbol:         o.Symbol,
		Type:           typ,
		Status:         st,
		OpenDate:       ts(o.OpenDate),
		CompletionDate: ts(o.CompletionDate),
		Quantity:       o.Quantity,
		PriceCents:     int64(o.Price),
		FeeCents:       int64(o.Fee),
	}, nil
}

func fromOrder(o *pb.Order) (trade.Order, error) {
	var typ trade.OrderType
	for k, v := range orderTypes {
		if v == o.GetType() {
			typ = k
		}
	}
	var st trade.OrderStatus
	for k, v := range orderStatuses {
		if v == o.GetStatus() {
			st = k
		}
	}
	if typ == "" || st == "" {
		return trade.Order{}, fmt.Errorf("order %d has unknown type %v or status %v", o.GetOrderId(), o.GetType(), o.GetStatus())
	}
	return trade.Order{
		OrderID:        o.GetOrderId(),
		AccountID:      o.GetAccountId(),
		HoldingID:      o.GetHoldingId(),
		Symbol:         o.GetSymbol(),
		Type:           typ,
		Status:         st,
		OpenDate:       fromTS(o.GetOpenDate()),
		CompletionDate: fromTS(o.GetCompletionDate()),
		Quantity:       o.GetQuantity(),
		Price:          trade.Money(o.GetPriceCents()),
		Fee:            trade.Money(o.GetFeeCents()),
	}, nil
}

func toOrders(os []trade.Order) (*pb.Orders, error) {
	out := &pb.Orders{Orders: make([]*pb.Order, len(os))}
	for i, o := range os {
		p, err := toOrder(o)
		if err != nil {
			return nil, err
		}
		out.Orders[i] = p
	}
	return out, nil
}

func fromOrders(p *pb.Orders) ([]trade.Order, error) {
	out := make([]trade.Order, len(p.GetOrders()))
	for i, o := range p.GetOrders() {
		v, err := fromOrder(o)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func toQuote(q trade.Quote) *pb.Quote {
	return &pb.Quote{
		Symbol:      q.Symbol,
		CompanyName: q.CompanyName,
		PriceCents:  int64(q.Price),
		OpenCents:   int64(q.Open),
		LowCents:    int64(q.Low),
		HighCents:   int64(q.High),
		ChangeCents: int64(q.Change),
		Volume:      q.Volume,
	}
}

func fromQuote(q *pb.Quote) trade.Quote {
	return trade.Quote{
		Symbol:      q.GetSymbol(),
		CompanyName: q.GetCompanyName(),
		Price:       trade.Money(q.GetPriceCents()),
		Open:        trade.Money(q.GetOpenCents()),
		Low:         trade.Money(q.GetLowCents()),
		High:        trade.Money(q.GetHighCents()),
		Change:      trade.Money(q.GetChangeCents()),
		Volume:      q.GetVolume(),
	}
}

func toQuotes(qs []trade.Quote) []*pb.Quote {
	out := make([]*pb.Quote, len(qs))
	for i, q := range qs {
		out[i] = toQuote(q)
	}
	return out
}

func fromQuotes(qs []*pb.Quote) []trade.Quote {
	out := make([]trade.Quote, len(qs))
	for i, q := range qs {
		out[i] = fromQuote(q)
	}
	return out
}

func toSummary(m trade.MarketSummary) *pb.MarketSummary {
	return &pb.MarketSummary{
		TsiaCents:     int64(m.TSIA),
		OpenTsiaCents: int64(m.OpenTSIA),
		Volume:        m.Volume,
		TopGainers:    toQuotes(m.TopGainers),
		TopLosers:     toQuotes(m.TopLosers),
		Date:          ts(m.Date),
	}
}

func fromSummary(m *pb.MarketSummary) trade.MarketSummary {
	return trade.MarketSummary{
		TSIA:       trade.Money(m.GetTsiaCents()),
		OpenTSIA:   trade.Money(m.GetOpenTsiaCents()),
		Volume:     m.GetVolume(),
		TopGainers: fromQuotes(m.GetTopGainers()),
		TopLosers:  fromQuotes(m.GetTopLosers()),
		Date:       fromTS(m.GetDate()),
	}
}
