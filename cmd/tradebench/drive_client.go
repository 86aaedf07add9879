package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/tradebench/tradebench/bench/smartclient"
	"github.com/tradebench/tradebench/driver/disclose"
	"github.com/tradebench/tradebench/driver/load"
	progressline "github.com/tradebench/tradebench/driver/progress"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/driver/streamload"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// clientScenarioFlags are drive's flags for --scenario client (the smart client load), a block
// of their own: the transport and the services host, as `tradebench client` takes them.
type clientScenarioFlags struct {
	access, bsl, tokenFile string
}

func (f *clientScenarioFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.access, "access", remote.REST, "--scenario client: transport to the business services: soap, rest or grpc")
	fs.StringVar(&f.bsl, "bsl", "", "--scenario client: the services host's endpoint for --access (host:port)")
	fs.StringVar(&f.tokenFile, "service-token-file", "", "--scenario client: file holding the deployment's service token; $"+svcauth.EnvToken+" wins")
}

// runClientScenario is `drive --scenario client`: virtual users that drive the business services
// directly, as the smart client does, reported like any scenario. Parameters (--set): users and
// quotes (the loaded data set's sizes), password, quantity.
func runClientScenario(ctx context.Context, fs *flag.FlagSet, f *driveFlags, cf clientScenarioFlags, sf streamFlags) error {
	given := givenFlags(fs)
	if given["url"] {
		return usageErrorf("--url (quick mode) and --scenario client drive different things; give one")
	}
	cfg, err := f.config(fs, "")
	if err != nil {
		return err
	}
	if cfg.Peak != nil {
		return usageErrorf("--peak: the client scenario runs one load level; step --users yourself")
	}
	if cfg.MetricsListen != "" || cfg.Dashboard != "" {
		return usageErrorf("--metrics-listen and --dashboard watch HTTP scenarios; the client scenario has no live views yet")
	}
	switch cf.access {
	case remote.SOAP, remote.REST, remote.GRPC:
	default:
		return usageErrorf("--access: %q is not a transport of the business services: use soap, rest or grpc", cf.access)
	}
	if cf.bsl == "" {
		return usageErrorf("--bsl is required with --scenario client: the services host's %s endpoint (host:port)", cf.access)
	}
	spec := dataset.DefaultSpec()
	params := map[string]string{"users": strconv.Itoa(spec.Accounts), "quotes": strconv.Itoa(spec.Quotes), "password": dataset.Password, "quantity": "100"}
	for k, v := range f.set {
		if _, ok := params[k]; !ok {
			return usageErrorf("--set %s: the client scenario's parameters are users, quotes, password and quantity", k)
		}
		params[k] = v
	}
	accounts, err1 := strconv.Atoi(params["users"])
	quotes, err2 := strconv.Atoi(params["quotes"])
	qty, err3 := strconv.ParseInt(params["quantity"], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || accounts < 1 || quotes < 1 || qty < 1 {
		return usageErrorf("--set users, quotes and quantity must be positive whole numbers")
	}
	think := scenario.Think{Kind: scenario.ThinkFixed, A: smartclient.DefaultThink}
	if cfg.Think != nil {
		think = *cfg.Think
	}
	token, _, _, err := svcauth.Resolve(cf.tokenFile, false)
	if err != nil {
		return usageErrorf("--service-token-file: %v", err)
	}
	svc, err := remote.Dial(cf.access, cf.bsl, remote.Options{Timeout: cfg.Timeout, Auth: svcauth.Client{Token: token}})
	if err != nil {
		return usageErrorf("--bsl %s: %v", cf.bsl, err)
	}
	defer svc.Close()
	if err := reachable(ctx, svc, cfg.Timeout); err != nil {
		return usageErrorf("--bsl %s: the services host does not answer over %s: %v", cf.bsl, cf.access, err)
	}
	sc := smartclient.Config{Service: svc, Accounts: accounts, Quotes: quotes, Password: params["password"], Quantity: qty, Think: think, Seed: cfg.Seed}
	users := cfg.Users
	if cfg.Rate > 0 {
		users = cfg.MaxInFlight
		if users == 0 {
			users = min(load.DefaultMaxInFlight, accounts)
			cfg.MaxInFlight = users
		}
	}
	if err := sc.Validate(users); err != nil {
		return usageErrorf("--users: %v", err)
	}
	if cfg.Stream, err = sf.config(cfg.Target); err != nil {
		return err
	}
	lc := cfg.Load()
	lc.Watchers = []load.Watcher{&progressline.Line{W: cfg.Progress, TTY: cfg.ProgressTTY, Label: smartclient.Name, Total: lc.RampUp + lc.Steady + lc.RampDown, Open: lc.Open()}}
	sc.SetDefaults()
	w := sc
	res, err := streamload.Measure(ctx, cfg.Stream, cfg.RampUp, cfg.Duration, func() (*report.Results, error) { return load.Run(ctx, lc, w) })
	if res == nil {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	disclose.Fill(res)
	res.Workload = smartclient.Workload
	res.Scenario = smartclient.Name
	res.Target = cf.access + "://" + cf.bsl
	res.Settings.Think = think.String()
	res.Settings.Params = params
	res.Settings.Timeout = cfg.Timeout.String()
	res.Settings.Seed = sc.Seed
	if res.Settings.Workload, err = report.Section(smartclient.Settings{Access: cf.access, BSL: cf.bsl}); err != nil {
		return err
	}
	if err == nil && len(cfg.Thresholds) > 0 {
		err = res.CheckThresholds(cfg.Thresholds)
	}
	err = finish(res, f.out, &f.publish, err)
	if res.Stream != nil {
		fmt.Println(res.Stream.Line())
	}
	return err
}
