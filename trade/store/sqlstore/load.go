package sqlstore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
)

// LoadMarker reads the load marker from the row LoadMarkerSQL selected (ErrNotLoaded when
// there is none).
func LoadMarker(row Scanner) (store.LoadInfo, error) {
	var v string
	err := row.Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return store.LoadInfo{}, store.ErrNotLoaded
	}
	if err != nil {
		return store.LoadInfo{}, err
	}
	var li store.LoadInfo
	if err := json.Unmarshal([]byte(v), &li); err != nil {
		return store.LoadInfo{}, fmt.Errorf("load marker is corrupt: %w", err)
	}
	return li, nil
}

// LoadMarkerSQL selects the load marker.
const LoadMarkerSQL = "SELECT value FROM meta WHERE key = 'load'"

// Load is what a store's Load starts from: the checked spec, its generator, and the progress
// bar's shares (Rows for the generated rows, Post for copies, keys and statistics).
type Load struct {
	Spec     store.LoadSpec
	Gen      *dataset.Gen
	Rows     int64
	Post     int64
	Total    int64
	Progress func(done, total int64) // never nil

	shares int64 // the generated holdings' shares, for the marker
}

// Account generates account i with its holdings and orders, and counts its holdings' shares
// for the marker. Both stores generate each account once, from one goroutine.
func (l *Load) Account(i int) dataset.Bundle {
	b := l.Gen.Account(i)
	for _, h := range b.Holdings {
		l.shares += h.Quantity
	}
	return b
}

// NewLoad checks spec, hashes the one password and sizes the progress bar.
func NewLoad(spec store.LoadSpec, progress func(done, total int64)) (*Load, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	hash, err := dataset.HashPassword(spec.HashCost)
	if err != nil {
		return nil, err
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	l := &Load{Spec: spec, Gen: dataset.New(spec, hash), Rows: spec.Rows(), Progress: progress}
	l.Post = l.Rows/4 + 1
	l.Total = l.Rows + l.Post
	return l, nil
}

// Marker is the load marker of a finished load (its holdings' shares counted by Account), and
// the JSON the meta row keeps of it.
func (l *Load) Marker() (store.LoadInfo, string) {
	spec := l.Spec
	li := store.LoadInfo{
		Spec:          spec,
		MaxAccountID:  int64(spec.Accounts),
		MaxHoldingID:  int64(spec.Accounts) * int64(spec.Holdings),
		MaxOrderID:    int64(spec.Accounts) * int64(spec.Holdings),
		HoldingShares: l.shares,
		LoadedAt:      time.Now().UTC().Format(time.RFC3339),
	}
	js, _ := json.Marshal(li)
	return li, string(js)
}

// The loaded tables' columns, in the order of the row values below and of the tables'
// definitions (both stores' DDL lists them so).
var (
	AccountRowCols = []string{"accountid", "userid", "passwd", "fullname", "address", "email", "creditcard", "balance", "openbalance",
		"creationdate", "lastlogin", "logincount", "logoutcount"}
	HoldingRowCols = strings.Split(HoldingCols, ", ")
	OrderRowCols   = strings.Split(OrderCols, ", ")
	QuoteRowCols   = strings.Split(QuoteCols, ", ")
)

// AccountRow is a generated account's row (AccountRowCols); tm stores a timestamp as the
// store keeps it.
func AccountRow(b *dataset.Bundle, tm func(time.Time) any) []any {
	a, p := b.Account, b.Profile
	return []any{a.AccountID, a.UserID, b.PasswordHash, p.FullName, p.Address, p.Email, p.CreditCard,
		int64(a.Balance), int64(a.OpenBalance), tm(a.CreationDate), tm(a.LastLogin), a.LoginCount, a.LogoutCount}
}

// HoldingRow is a holding's row (HoldingRowCols).
func HoldingRow(h *trade.Holding, tm func(time.Time) any) []any {
	return []any{h.HoldingID, h.AccountID, h.Symbol, h.Quantity, int64(h.PurchasePrice), tm(h.PurchaseDate)}
}

// OrderRow is an order's row (OrderRowCols).
func OrderRow(o *trade.Order, tm func(time.Time) any) []any {
	return []any{o.OrderID, o.AccountID, nullID(o.HoldingID), o.Symbol, string(o.Type), string(o.Status),
		tm(o.OpenDate), tm(o.CompletionDate), o.Quantity, int64(o.Price), int64(o.Fee)}
}

// QuoteRow is a quote's row (QuoteRowCols).
func QuoteRow(x trade.Quote) []any {
	return []any{x.Symbol, x.CompanyName, int64(x.Price), int64(x.Open), int64(x.Low), int64(x.High), int64(x.Change), x.Volume}
}
