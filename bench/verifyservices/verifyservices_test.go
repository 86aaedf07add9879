package verifyservices

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradebench/tradebench/bench/internal/verifytest"
	"github.com/tradebench/tradebench/bench/verify"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/server"
)

const token = "verifyservices-test-token-0123456789"

// startHost starts a real services host (tradebench's bsl role) on loopback ports, requiring
// the service token; mode is its order mode (with an asynchronous mode the host runs the order
// processor too, as `serve --role bsl,orders`).
func startHost(t testing.TB, mode orders.Mode) *server.Server {
	t.Helper()
	dir := t.TempDir()
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 10, 20
	cfg := server.DefaultConfig()
	cfg.DB, cfg.LoadIfEmpty = "sqlite:"+filepath.Join(dir, "services.db"), &spec
	cfg.Roles, cfg.ServiceToken, cfg.Orders.Mode, cfg.Orders.WorkDir = server.Roles{BSL: true}, token, mode, dir
	cfg.BSLListen, cfg.BSLGRPCListen = "127.0.0.1:0", "127.0.0.1:0"
	if mode != orders.Sync {
		cfg.Roles.Orders = true
		cfg.OrderHTTPListen, cfg.OrderGRPCListen = "127.0.0.1:0", "127.0.0.1:0"
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// addr is the host's endpoint for access.
func addr(s *server.Server, access string) string {
	if access == remote.GRPC {
		return s.Host().Info().GRPCAddr
	}
	return s.Host().Info().HTTPAddr
}

func verifyHost(t testing.TB, cfg Config) *report.Verification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg, verify.NewRun())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A real services host passes every check over SOAP, REST and gRPC, with no check skipped, and
// the results name only verify's own accounts. Mutants killed, each failing exactly its check
// (scripts/mutants.d/verifyservices-*.sed): no commission (business.commission); a holding
// readable and sellable by another user (isolation.get_other, isolation.sell_other).
func TestVerifyServices(t *testing.T) {
	s := startHost(t, orders.Sync)
	for _, access := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		t.Run(access, func(t *testing.T) {
			res := verifyHost(t, Config{Access: access, Addr: addr(s, access), Token: token, SyncOrders: true})
			verifytest.MustConform(t, res)
			for _, c := range res.Checks {
				if c.Outcome != report.CheckPass {
					t.Errorf("%s: %s %s", c.ID, c.Outcome, c.Reason)
				}
			}
			if len(res.Accounts) < 2 || !strings.HasPrefix(res.Accounts[0], "vsf-") {
				t.Errorf("accounts %v, want verify's own vsf-… accounts", res.Accounts)
			}
		})
	}
}

// Asynchronous orders pass within the bound; a host without the token is refused at once
// (a verification that could not be made fails its first checks, it does not pass).
func TestVerifyServicesAsyncAndAuth(t *testing.T) {
	s := startHost(t, orders.AsyncVolatile)
	verifytest.MustConform(t, verifyHost(t, Config{Access: remote.REST, Addr: addr(s, remote.REST), Token: token, OrderBound: 20 * time.Second}))
	res := verifyHost(t, Config{Access: remote.GRPC, Addr: addr(s, remote.GRPC), Token: "wrong-token-0123456789-0123456789"})
	if res.Conformant || res.Level != 0 {
		t.Fatalf("a host refusing verify's token: %s", res.Headline())
	}
}

// systemFaultOnBadQuantity is a broken service: a zero or negative quantity gets a system
// fault (what a 500 is over the wire) instead of a clear refusal.
type systemFaultOnBadQuantity struct{ trade.Service }

func (s systemFaultOnBadQuantity) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	if quantity <= 0 {
		return trade.Order{}, errors.New("internal server error")
	}
	return s.Service.Buy(ctx, userID, symbol, quantity)
}

// registersAnyway is a broken service: an overlong full name is refused with a clear error,
// but the account is registered anyway (with the name cut short).
type registersAnyway struct{ trade.Service }

func (s registersAnyway) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	if len(r.FullName) > trade.MaxFieldLen {
		r.FullName = r.FullName[:trade.MaxFieldLen]
		if _, err := s.Service.Register(ctx, r); err != nil {
			return trade.Account{}, err
		}
		return trade.Account{}, trade.Errorf(trade.CodeInvalid, "full name too long")
	}
	return s.Service.Register(ctx, r)
}

// leaksHolding is a broken service: GetHolding answers any holding it has seen listed, whoever
// asks (the holding's owner is not checked when it is read; selling it is still refused).
type leaksHolding struct {
	trade.Service
	mu    sync.Mutex
	owner map[int64]string
}

func (s *leaksHolding) GetHoldings(ctx context.Context, uid string) ([]trade.Holding, error) {
	hs, err := s.Service.GetHoldings(ctx, uid)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range hs {
		s.owner[h.HoldingID] = uid
	}
	return hs, err
}

func (s *leaksHolding) GetHolding(ctx context.Context, uid string, id int64) (trade.Holding, error) {
	s.mu.Lock()
	owner, ok := s.owner[id]
	s.mu.Unlock()
	if ok {
		uid = owner
	}
	return s.Service.GetHolding(ctx, uid, id)
}

// A service that answers a bad quantity with a system fault fails input.quantity and nothing
// else, with the call as its evidence; one that refuses an overlong name but registers the
// account anyway fails input.fields and nothing else; one that lets a user read another's
// holding fails isolation.get_other and nothing else (mutant verifyservices-get-other-accepted:
// the check accepting a returned holding).
func TestVerifyServicesBroken(t *testing.T) {
	s := startHost(t, orders.Sync)
	svc, err := remote.Dial(remote.REST, addr(s, remote.REST), remote.Options{Auth: svcauth.Client{Token: token}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Check(ctx, systemFaultOnBadQuantity{svc}, Config{Access: remote.REST, Addr: "broken", SyncOrders: true}, verify.NewRun())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Failed(); !slices.Equal(got, []string{"input.quantity"}) {
		var b bytes.Buffer
		res.WriteSummary(&b)
		t.Fatalf("failed %v, want exactly [input.quantity]\n%s", got, b.String())
	}
	for _, c := range res.Checks {
		if c.ID == "input.quantity" && (len(c.Evidence) == 0 || !strings.Contains(c.Evidence[0].Request, "Buy(")) {
			t.Errorf("input.quantity evidence %+v, want the Buy call", c.Evidence)
		}
	}
	res, err = Check(ctx, registersAnyway{svc}, Config{Access: remote.REST, Addr: "broken", SyncOrders: true}, verify.NewRun())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Failed(); !slices.Equal(got, []string{"input.fields"}) {
		var b bytes.Buffer
		res.WriteSummary(&b)
		t.Fatalf("failed %v, want exactly [input.fields]\n%s", got, b.String())
	}
	for _, c := range res.Checks {
		if c.ID == "input.fields" && (len(c.Evidence) != 1 || !strings.Contains(c.Evidence[0].Got, "exists")) {
			t.Errorf("input.fields evidence %+v, want the registration that created its account", c.Evidence)
		}
	}
	res, err = Check(ctx, &leaksHolding{Service: svc, owner: map[int64]string{}}, Config{Access: remote.REST, Addr: "broken", SyncOrders: true}, verify.NewRun())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Failed(); !slices.Equal(got, []string{"isolation.get_other"}) {
		var b bytes.Buffer
		res.WriteSummary(&b)
		t.Fatalf("failed %v, want exactly [isolation.get_other]\n%s", got, b.String())
	}
}
