package remote_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// refusing is a services host's business layer that refuses every quote as unauthorized, as
// another implementation may answer a caller without its token: in the contract's own terms.
type refusing struct{ trade.Service }

func (refusing) GetQuote(context.Context, string) (trade.Quote, error) {
	return trade.Quote{}, trade.Errorf(trade.CodeUnauthorized, "caller not authorized")
}

// TestReachableUnauthorized: a host that answers "unauthorized" over each transport is there,
// but not to this client: Reachable fails and says where the client's token comes from — the
// environment or its token file, in the words of the settings, not of a command line. A host
// that answers is reachable.
func TestReachableUnauthorized(t *testing.T) {
	svc := testenv.Service(t)
	refuses, answers := startHost(t, refusing{svc}), startHost(t, svc)
	ctx := context.Background()
	for _, access := range transports {
		err := remote.Reachable(ctx, dial(t, refuses, access, remote.Options{}), 5*time.Second)
		if err == nil || !strings.Contains(err.Error(), "$"+svcauth.EnvToken+" or its token file") || strings.Contains(err.Error(), "--") {
			t.Errorf("%s, unauthorized: %v", access, err)
		}
		if err := remote.Reachable(ctx, dial(t, answers, access, remote.Options{}), 5*time.Second); err != nil {
			t.Errorf("%s, answering: %v", access, err)
		}
	}
}
