package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Config is the smart client as `tradebench client` runs it: the services host it calls and
// how, and the screens' options.
type Config struct {
	// Access is the transport to the business services: soap, rest or grpc.
	Access string
	// BSL is the services host's endpoint for Access (host:port): its SOAP/REST address for
	// soap and rest, its gRPC address for grpc.
	BSL string
	// TokenFile holds the deployment's service token ($TRADEBENCH_SERVICE_TOKEN wins; ""
	// = ./tradebench-service-token if present, else none).
	TokenFile string
	// Batch, if set, is the one screen Run prints as text (BatchScreens) instead of running
	// the interactive client; it needs a Password (and a UserID).
	Batch string
	// Options are the screens': the login's prefill, the quotes' symbols and stream, the call
	// timeout.
	Options
}

// SetDefaults fills the zero fields that have a default.
func (c *Config) SetDefaults() { c.Options.SetDefaults() }

// Validate reports a bad setting as a *setting.Error naming the field, checking c as
// SetDefaults leaves it.
func (c Config) Validate() error {
	c.SetDefaults()
	switch {
	case c.Access != remote.SOAP && c.Access != remote.REST && c.Access != remote.GRPC:
		return setting.Errorf("Access", "%q is not a transport of the business services: use soap, rest or grpc", c.Access)
	case c.BSL == "":
		return setting.Errorf("BSL", "is required: the services host's %s endpoint (host:port)", c.Access)
	case c.CallTimeout < 0:
		return setting.Errorf("CallTimeout", "must be positive, got %v", c.CallTimeout)
	case c.Stream != "" && !strings.HasPrefix(c.Stream, "http://") && !strings.HasPrefix(c.Stream, "https://"):
		return setting.Errorf("Stream", "give a web tier's base URL, e.g. http://127.0.0.1:8080, got %q", c.Stream)
	case len(c.Symbols) > trade.MaxSymbols:
		return setting.Errorf("Symbols", "give 1 to %d symbols", trade.MaxSymbols)
	case c.Batch != "" && !slices.Contains(BatchScreens(), c.Batch):
		return setting.Errorf("Batch", "unknown screen %q: want one of %s", c.Batch, strings.Join(BatchScreens(), ", "))
	case c.Batch != "" && c.Password == "":
		return setting.Errorf("Password", "is required in batch mode (and a user id)")
	}
	return nil
}

// Run dials the services host and makes sure it answers (a *setting.Error of BSL or TokenFile
// if not), then prints the Batch screen to out or runs the interactive client until the user
// quits or ctx ends (an interrupted client is no error). A failed service call in batch mode is
// an error as the service gave it.
func Run(ctx context.Context, c Config, out io.Writer) error {
	c.SetDefaults()
	if err := c.Validate(); err != nil {
		return err
	}
	token, _, _, err := svcauth.Resolve(c.TokenFile, false)
	if err != nil {
		return &setting.Error{Field: "TokenFile", Err: err}
	}
	svc, err := remote.Dial(c.Access, c.BSL, remote.Options{Timeout: c.CallTimeout, Auth: svcauth.Client{Token: token}})
	if err != nil {
		return setting.Errorf("BSL", "%s: %v", c.BSL, err)
	}
	defer svc.Close()
	if err := remote.Reachable(ctx, svc, c.CallTimeout); err != nil {
		return setting.Errorf("BSL", "%s: the services host does not answer over %s: %v", c.BSL, c.Access, err)
	}
	if c.Batch != "" {
		bctx, cancel := context.WithTimeout(ctx, 4*c.CallTimeout)
		defer cancel()
		text, err := Batch(bctx, svc, c.Batch, c.UserID, c.Password, c.Symbols)
		if err != nil {
			return err
		}
		_, err = fmt.Fprint(out, text)
		return err
	}
	c.Describe = c.Access + " → " + c.BSL
	_, err = tea.NewProgram(New(svc, c.Options), tea.WithContext(ctx)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted: a normal way to leave
	}
	return err
}
