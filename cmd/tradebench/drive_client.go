package main

import (
	"flag"

	"github.com/tradebench/tradebench/bench/smartclient"
	"github.com/tradebench/tradebench/internal/cliflag"
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

// job is `drive --scenario client`: virtual users that drive the business services directly,
// as the smart client does, through the same pipeline as any scenario. Parameters (--set):
// users and quotes (the loaded data set's sizes), password, quantity.
func (f *clientScenarioFlags) job(given map[string]bool, params map[string]string) (*smartclient.Job, error) {
	if given["url"] {
		return nil, cliflag.Errorf("--url (quick mode) and --scenario client drive different things; give one")
	}
	token, _, _, err := svcauth.Resolve(f.tokenFile, false)
	if err != nil {
		return nil, cliflag.Errorf("--service-token-file: %v", err)
	}
	return &smartclient.Job{Access: f.access, BSL: f.bsl, Token: token, Params: params}, nil
}
