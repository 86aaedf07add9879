package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/fleet"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/natsx"
)

func init() {
	register(&command{name: "agent", summary: "a load agent: joins NATS and runs its share of the load a controller (drive/run --agents N) gives it", run: runAgent})
}

var agentHelp = helpText("agent.txt")

func runAgent(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench agent", "--nats URL [--name NAME]")
	var b fleet.Broker
	var ac fleet.AgentConfig
	fs.StringVar(&b.URL, "nats", "", "NATS server or cluster to join, e.g. nats://controller:4222 (required)")
	fs.StringVar(&ac.Name, "name", "", "the agent's name in results (default: host-pid)")
	fs.StringVar(&b.TokenFile, "nats-token-file", "", "file holding the fleet's NATS token, mode 0600 (default: $"+natsx.EnvToken+", else ./"+natsx.DefaultTokenFile+")")
	fs.StringVar(&ac.MetricsListen, "metrics-listen", "", "serve this agent's own live metrics for Prometheus at http://ADDR/metrics (e.g. 127.0.0.1:9465; the address is the access control)")
	cliflag.SetHelp(fs, agentHelp)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	ac.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	return fleetFlagNames.OrUsage(fleet.Join(ctx, b, ac))
}

// fleetFlags are the controller's flags of drive and run: with --agents N the load runs on N
// agents instead of in this process.
type fleetFlags struct {
	agents    int
	wait      time.Duration
	natsURL   string
	listen    string
	allowLoss bool
	tokenFile string
}

func (f *fleetFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.agents, "agents", 0, "distributed run: spread the users (or rate) evenly over this many agents ('tradebench agent') and merge their results (0 = drive from this process)")
	fs.DurationVar(&f.wait, "agents-wait", fleet.DefaultWait, "distributed run: how long to wait for the agents to join")
	fs.StringVar(&f.natsURL, "nats", "", "distributed run: the NATS server or cluster the agents joined, e.g. nats://nats:4222")
	fs.StringVar(&f.listen, "nats-listen", "", "distributed run: start an embedded NATS server on this host:port for the agents to join, e.g. 0.0.0.0:4222")
	fs.StringVar(&f.tokenFile, "nats-token-file", "", "distributed run: file holding the fleet's NATS token, mode 0600 (default: $"+natsx.EnvToken+", else ./"+natsx.DefaultTokenFile+", which --nats-listen creates)")
	fs.BoolVar(&f.allowLoss, "allow-agent-loss", false, "distributed run: exit 0 even if an agent was lost (stopped reporting for 5 s); the summary still says so")
}

// distributor checks the flags and, with --agents, connects the controller (starting the
// embedded broker for --nats-listen). close releases what it started.
func (f *fleetFlags) distributor(fs *flag.FlagSet, cfg driver.Config) (d driver.Distributor, close func(), err error) {
	given := cliflag.Given(fs)
	close = func() {}
	switch {
	case f.agents < 0:
		return nil, close, cliflag.Errorf("--agents must not be negative, got %d", f.agents)
	case f.agents == 0:
		for _, n := range []string{"agents-wait", "nats", "nats-listen", "allow-agent-loss", "nats-token-file"} {
			if given[n] {
				return nil, close, cliflag.Errorf("--%s applies to distributed runs: give --agents N too", n)
			}
		}
		return nil, close, nil
	case cfg.Peak != nil:
		return nil, close, cliflag.Errorf("--peak runs in one process; it cannot be combined with --agents")
	}
	c, close, err := fleet.Dial(fleet.Broker{URL: f.natsURL, Listen: f.listen, TokenFile: f.tokenFile, Log: os.Stderr},
		fleet.ControllerConfig{Agents: f.agents, Wait: f.wait, AllowLoss: f.allowLoss})
	if err != nil {
		return nil, close, fleetFlagNames.UsageError(err)
	}
	return c, close, nil
}

// fleetFlagNames names the flags that set fleet.Broker's, fleet.ControllerConfig's and (agent)
// fleet.AgentConfig's fields.
var fleetFlagNames = cliflag.Names{"URL": "nats", "Listen": "nats-listen", "TokenFile": "nats-token-file", "Agents": "agents", "Wait": "agents-wait",
	"MetricsListen": "metrics-listen"}

// agentLossHint adds to a lost agent's error the flag that accepts the loss; the exit status
// stays the error's.
func agentLossHint(err error) error {
	var lost *driver.AgentsLostError
	if errors.As(err, &lost) {
		return fmt.Errorf("%w (--allow-agent-loss accepts this)", err)
	}
	return err
}
