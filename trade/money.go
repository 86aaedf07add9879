package trade

import "github.com/tradebench/tradebench/internal/money"

// Money is an exact amount in cents (package money, shared with WSTest). Money is never a
// float: balances are sums of many orders and an audit must find them equal to the cent.
type Money = money.Money

// Cents builds Money from whole cents.
func Cents(c int64) Money { return money.Cents(c) }

// ParseMoney parses "123", "123.4", "123.45", "-0.5" or "$1,234.50" exactly (money.Parse).
func ParseMoney(s string) (Money, error) { return money.Parse(s) }
