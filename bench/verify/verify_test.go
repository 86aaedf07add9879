package verify

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/bench/internal/verifytest"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/server"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// startServer starts a tradebench process on a small data set; mut changes its configuration.
func startServer(t testing.TB, mut func(*server.Config)) *server.Server {
	t.Helper()
	dir := t.TempDir()
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 20, 120 // over 100 quotes: the market summary has index quotes
	cfg := server.DefaultConfig()
	cfg.DB, cfg.Listen, cfg.LoadIfEmpty = "sqlite:"+filepath.Join(dir, "verify.db"), "127.0.0.1:0", &spec
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Orders.WorkDir = dir
	if mut != nil {
		mut(&cfg)
	}
	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// verifyTarget runs the suite against url with a short audit and returns what it found.
func verifyTarget(t testing.TB, url string) *report.Verification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{Target: url, AuditUsers: 3, AuditTrades: 4, OrderBound: 20 * time.Second}, NewRun())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The monolith in its default mode (SQLite, in-process access, synchronous orders) passes every
// check and says which accounts it made. Mutants killed (scripts/mutants.d/verify-*.sed), each
// failing exactly its check: no commission (business.commission), orders never completed
// (business.orders_complete), a holding sellable by another user (isolation.sell_other), a 500
// on a negative quantity (input.quantity).
func TestVerifyTradebench(t *testing.T) {
	s := startServer(t, nil)
	res := verifyTarget(t, s.URL())
	verifytest.MustConform(t, res)
	if len(res.Accounts) < 5 || !strings.HasPrefix(res.Accounts[0], "vf-") {
		t.Fatalf("accounts %v, want verify's own vf-… accounts", res.Accounts)
	}
	for _, c := range res.Checks {
		if c.Outcome == report.CheckSkip && c.ID != "isolation.cancel_other" {
			t.Errorf("%s skipped against tradebench: %s", c.ID, c.Reason)
		}
	}
}

// tradebench passes every check in every deployment mode: each access mode and each order mode
// of the monolith on SQLite, the monolith on PostgreSQL, and the split deployment (a services
// host with the durable queue, a separate order processor, web tiers calling the host over SOAP
// and gRPC) on PostgreSQL. (The default mode is TestVerifyTradebench.)
func TestVerifyEveryMode(t *testing.T) {
	type mode struct {
		name string
		mut  func(*server.Config)
	}
	var modes []mode
	for _, a := range remote.Accesses()[1:] {
		modes = append(modes, mode{"sqlite/access-" + a, func(c *server.Config) { c.Access = a }})
	}
	for _, o := range orders.Modes {
		if o != orders.Sync {
			modes = append(modes, mode{"sqlite/orders-" + string(o), func(c *server.Config) { c.Orders.Mode = o }})
		}
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			verifytest.MustConform(t, verifyTarget(t, startServer(t, m.mut).URL()))
		})
	}
	t.Run("postgres/monolith", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		verifytest.MustConform(t, verifyTarget(t, startServer(t, func(c *server.Config) { c.DB = dsn }).URL()))
	})
	t.Run("postgres/split", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		const token = "verify-split-test-token-0123456789"
		bsl := startServer(t, func(c *server.Config) {
			c.DB, c.Roles, c.Orders.Mode, c.ServiceToken = dsn, server.Roles{BSL: true}, orders.AsyncDurable, token
			c.BSLListen, c.BSLGRPCListen = "127.0.0.1:0", "127.0.0.1:0" // not the fixed 8081/8082 a services host defaults to
		})
		startServer(t, func(c *server.Config) {
			c.DB, c.Roles, c.Orders.Mode, c.ServiceToken, c.LoadIfEmpty = dsn, server.Roles{Orders: true}, orders.AsyncDurable, token, nil
			c.Orders.NATS, c.Orders.NATSToken = bsl.Orders().NATSURL, bsl.Orders().NATSToken
			c.OrderHTTPListen, c.OrderGRPCListen = "127.0.0.1:0", "127.0.0.1:0"
		})
		in := bsl.Host().Info()
		for _, a := range []string{remote.SOAP, remote.GRPC} {
			web := startServer(t, func(c *server.Config) {
				c.DB, c.Roles, c.Access, c.ServiceToken, c.LoadIfEmpty = "", server.Roles{Web: true}, a, token, nil
				c.BSL, c.BSLGRPC = in.HTTPAddr, in.GRPCAddr
			})
			verifytest.MustConform(t, verifyTarget(t, web.URL()))
		}
	})
}
