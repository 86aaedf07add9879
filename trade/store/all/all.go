// Package all links in every store driver: import it for its side effect.
package all

import (
	_ "github.com/tradebench/tradebench/trade/store/postgres"
	_ "github.com/tradebench/tradebench/trade/store/sqlite"
)
