package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Reachable asks svc for a quote: an answer, even a refusal of the business rules, says the
// services host is there; a refused service token says where the client's token comes from
// (the environment or the token file of its settings: a command maps the file to its flag).
func Reachable(ctx context.Context, svc trade.Service, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, 5*time.Second))
	defer cancel()
	_, err := svc.GetQuote(ctx, "s:0")
	if err == nil || trade.AsError(err) != nil {
		if te := trade.AsError(err); te != nil && te.Code == trade.CodeUnauthorized {
			return fmt.Errorf("%s (give the client the deployment's service token: $%s or its token file)", te.Message, svcauth.EnvToken)
		}
		return nil
	}
	return errors.New(strings.Join(strings.Fields(err.Error()), " "))
}
