package fleet

import (
	"context"
	"fmt"
	"io"
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
	token, tokenPath, created, err := natsx.ResolveToken(b.TokenFile, b.Listen != "")
	if err != nil {
		return nil, stop, &setting.Error{Field: "TokenFile", Err: err}
	}
	cc.Secret = token
	broker, err := natsx.Dial(natsx.BrokerConfig{URL: b.URL, Token: token, ConnName: "tradebench controller",
		Server: natsx.ServerConfig{Name: "tradebench-fleet", Addr: b.Listen, MaxPayload: MaxPayload}})
	if err != nil {
		if created {
			os.Remove(tokenPath)
		}
		field := "URL"
		if b.Listen != "" {
			field = "Listen" // the embedded broker would not start, or not take its own connection
		}
		return nil, stop, &setting.Error{Field: field, Err: err}
	}
	if e := broker.Embedded; e != nil && b.Log != nil {
		where := "$" + natsx.EnvToken
		if tokenPath != "" {
			where = tokenPath
		}
		_, port, _ := net.SplitHostPort(e.Addr().String())
		fmt.Fprintf(b.Log, "NATS listening on %s (token in %s): start agents with 'tradebench agent --nats nats://THIS-HOST:%s' and that token\n", e.Addr(), where, port)
	}
	return NewController(broker.Conn, cc), broker.Close, nil
}

// Join is an agent process's whole life: it connects to the broker at b.URL (retrying until it
// is up: an agent may start before its broker), with the fleet's token from b.TokenFile (as Dial
// reads it; an agent never generates one), and serves controllers under ac until ctx ends. An
// agent starts no broker: b.Listen must be empty. Errors of a setting are *setting.Error naming
// the field (URL, TokenFile, or AgentConfig's).
func Join(ctx context.Context, b Broker, ac AgentConfig) error {
	switch {
	case b.URL == "":
		return setting.Errorf("URL", "is required: the NATS server or cluster the controller uses")
	case b.Listen != "":
		return setting.Errorf("Listen", "an agent joins a broker; it starts none")
	}
	token, _, _, err := natsx.ResolveToken(b.TokenFile, false)
	if err != nil {
		return &setting.Error{Field: "TokenFile", Err: err}
	}
	nc, err := natsx.Connect(b.URL, natsx.ConnectConfig{Name: "tradebench agent", Token: token, Retry: true})
	if err != nil {
		return &setting.Error{Field: "URL", Err: err}
	}
	defer nc.Close()
	ac.Secret = token
	return NewAgent(nc, ac).Serve(ctx)
}
