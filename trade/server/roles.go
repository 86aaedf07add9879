package server

import (
	"fmt"
	"strings"
)

// Roles are the parts of StockTrader a process runs (serve --role). The zero value means all
// of them: the monolith.
type Roles struct {
	Web    bool // the web application (pages)
	BSL    bool // the business services host: trade.Service over SOAP, REST and gRPC
	Orders bool // the order processor
}

// AllRoles is the monolith.
var AllRoles = Roles{Web: true, BSL: true, Orders: true}

// ParseRoles reads a --role value: "all", or a comma-separated list of web, bsl and orders.
func ParseRoles(s string) (Roles, error) {
	var r Roles
	for _, name := range strings.Split(s, ",") {
		switch strings.TrimSpace(strings.ToLower(name)) {
		case "all", "monolith":
			r = AllRoles
		case "web":
			r.Web = true
		case "bsl", "services":
			r.BSL = true
		case "orders":
			r.Orders = true
		default:
			return Roles{}, fmt.Errorf("unknown role %q: use all, or a comma-separated list of web, bsl, orders", strings.TrimSpace(name))
		}
	}
	return r, nil
}

// IsZero reports whether no role is set (which Start reads as all).
func (r Roles) IsZero() bool { return r == Roles{} }

func (r Roles) String() string {
	if r == AllRoles {
		return "web + business services + order processing (monolith)"
	}
	var parts []string
	if r.Web {
		parts = append(parts, "web")
	}
	if r.BSL {
		parts = append(parts, "business services")
	}
	if r.Orders {
		parts = append(parts, "order processing")
	}
	return strings.Join(parts, " + ")
}
