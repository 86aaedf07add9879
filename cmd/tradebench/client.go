package main

import (
	"context"
	"os"
	"strings"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/tui"
)

func init() {
	register(&command{name: "client", summary: "the smart client: a terminal UI over the business services (SOAP, REST or gRPC), or one screen as text (--batch)", run: runClient})
}

var clientHelp = helpText("client.txt", "{{token-file}}", svcauth.DefaultTokenFile)

// clientFlags names the flags that set tui.Config's fields.
var clientFlags = cliflag.Names{"Access": "access", "BSL": "bsl", "TokenFile": "service-token-file", "Stream": "stream", "Batch": "batch",
	"UserID": "uid", "Password": "password", "Symbols": "symbols", "CallTimeout": "call-timeout"}

func runClient(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench client", "")
	cliflag.SetHelp(fs, clientHelp)
	var c tui.Config
	fs.StringVar(&c.Access, "access", remote.REST, "transport to the business services: soap, rest or grpc")
	fs.StringVar(&c.BSL, "bsl", "", "the services host's endpoint for --access (host:port): SOAP/REST address for soap and rest, gRPC address for grpc")
	fs.StringVar(&c.TokenFile, "service-token-file", "", "file holding the deployment's service token; $"+svcauth.EnvToken+" wins")
	fs.StringVar(&c.Stream, "stream", "", "a web tier's base URL (http://host:port) whose live quote stream keeps the quotes screen current; empty = refresh every 2s")
	fs.StringVar(&c.Batch, "batch", "", "print one screen as text and exit: "+strings.Join(tui.BatchScreens(), ", "))
	fs.StringVar(&c.UserID, "uid", "uid:0", "user id (batch mode; prefills the login screen)")
	fs.StringVar(&c.Password, "password", "", "password (batch mode; prefills the login screen)")
	symbols := fs.String("symbols", strings.Join(tui.DefaultSymbols, ","), "the quotes screen's symbols (comma separated)")
	fs.DurationVar(&c.CallTimeout, "call-timeout", clientopt.DefaultTimeout, "timeout of every call to the services host")
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	c.Symbols = cliflag.SplitList(*symbols)
	return clientFlags.OrUsage(tui.Run(ctx, c, os.Stdout))
}
