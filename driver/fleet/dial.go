package fleet

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net"
	"os"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/setting"
)

// Broker is how a controller reaches its agents: the NATS server or cluster they joined (URL), or
// an embedded one the controller starts (Listen), with the fleet's token.
type Broker struct {
	URL    string // an existing NATS server or cluster, e.g. nats://nats:4222
	Listen string // start an embedded NATS server on this host:port instead
	// TokenFile holds the fleet's NATS token ("" = $TRADEBENCH_NATS_TOKEN, else
	// ./tradebench-nats-token, which Listen creates when it is missing).
	TokenFile string
	// Log receives the line that tells where the embedded broker listens (nil: none).
	Log io.Writer
}

// Dial connects a controller under cc through b, starting the embedded broker for Listen: the
// broker's whole lifecycle, so a command only names it. stop releases what Dial started (the
// connection, the broker). A token file generated here is removed again when the broker cannot
// start: a refused command leaves nothing behind. Errors are *setting.Error naming the field.
func Dial(b Broker, cc ControllerConfig) (c *Controller, stop func(), err error) {
	stop = func() {}
	switch {
	case b.URL == "" && b.Listen == "":
		return nil, stop, setting.Errorf("URL", "needed with agents: the NATS server they joined, or the address of an embedded one to start")
	case b.URL != "" && b.Listen != "":
		return nil, stop, setting.Errorf("Listen", "an embedded NATS server or an existing one, not both")
	}
	if err := cc.Validate(); err != nil {
		return nil, stop, err
	}
	_, statErr := os.Stat(natsx.DefaultTokenFile)
	token, tokenPath, err := natsx.ResolveToken(b.TokenFile, b.Listen != "")
	if err != nil {
		return nil, stop, &setting.Error{Field: "TokenFile", Err: err}
	}
	generated := b.TokenFile == "" && tokenPath == natsx.DefaultTokenFile && errors.Is(statErr, iofs.ErrNotExist)
	cc.Secret = token
	url := b.URL
	var broker *natsx.Server
	if b.Listen != "" {
		if broker, err = natsx.Start(natsx.ServerConfig{Name: "tradebench-fleet", Addr: b.Listen, Token: token, MaxPayload: MaxPayload}); err != nil {
			if generated {
				os.Remove(tokenPath)
			}
			return nil, stop, &setting.Error{Field: "Listen", Err: err}
		}
		url = broker.URL()
		where := "$" + natsx.EnvToken
		if tokenPath != "" {
			where = tokenPath
		}
		if b.Log != nil {
			_, port, _ := net.SplitHostPort(broker.Addr().String())
			fmt.Fprintf(b.Log, "NATS listening on %s (token in %s): start agents with 'tradebench agent --nats nats://THIS-HOST:%s' and that token\n", broker.Addr(), where, port)
		}
	}
	nc, err := natsx.Connect(url, natsx.ConnectConfig{Name: "tradebench controller", Token: token})
	if err != nil {
		if broker != nil {
			broker.Shutdown()
		}
		return nil, stop, &setting.Error{Field: "URL", Err: err}
	}
	return NewController(nc, cc), func() {
		nc.Close()
		if broker != nil {
			broker.Shutdown()
		}
	}, nil
}
