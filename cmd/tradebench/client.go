package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tradebench/tradebench/bench/smartclient"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/tui"
)

func init() {
	register(&command{name: "client", summary: "the smart client: a terminal UI over the business services (SOAP, REST or gRPC), or one screen as text (--batch)", run: runClient})
}

var clientHelp = helpText("client.txt", "{{token-file}}", svcauth.DefaultTokenFile)

func runClient(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench client", "")
	cliflag.SetHelp(fs, clientHelp)
	access := fs.String("access", remote.REST, "transport to the business services: soap, rest or grpc")
	bsl := fs.String("bsl", "", "the services host's endpoint for --access (host:port): SOAP/REST address for soap and rest, gRPC address for grpc")
	tokenFile := fs.String("service-token-file", "", "file holding the deployment's service token; $"+svcauth.EnvToken+" wins")
	streamURL := fs.String("stream", "", "a web tier's base URL (http://host:port) whose live quote stream keeps the quotes screen current; empty = refresh every 2s")
	batch := fs.String("batch", "", "print one screen as text and exit: "+strings.Join(tui.BatchScreens(), ", "))
	uid := fs.String("uid", "uid:0", "user id (batch mode; prefills the login screen)")
	password := fs.String("password", "", "password (batch mode; prefills the login screen)")
	symbols := fs.String("symbols", strings.Join(tui.DefaultSymbols, ","), "the quotes screen's symbols (comma separated)")
	timeout := fs.Duration("call-timeout", clientopt.DefaultTimeout, "timeout of every call to the services host")
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	switch *access {
	case remote.SOAP, remote.REST, remote.GRPC:
	default:
		return cliflag.Errorf("--access: %q is not a transport of the business services: use soap, rest or grpc", *access)
	}
	if *bsl == "" {
		return cliflag.Errorf("--bsl is required: the services host's %s endpoint (host:port)", *access)
	}
	if *timeout <= 0 {
		return cliflag.Errorf("--call-timeout must be positive, got %v", *timeout)
	}
	if *streamURL != "" && !strings.HasPrefix(*streamURL, "http://") && !strings.HasPrefix(*streamURL, "https://") {
		return cliflag.Errorf("--stream: give a web tier's base URL, e.g. http://127.0.0.1:8080, got %q", *streamURL)
	}
	var syms []string
	for s := range strings.SplitSeq(*symbols, ",") {
		if s = strings.TrimSpace(s); s != "" {
			syms = append(syms, s)
		}
	}
	if len(syms) == 0 || len(syms) > trade.MaxSymbols {
		return cliflag.Errorf("--symbols: give 1 to %d symbols separated by commas", trade.MaxSymbols)
	}
	token, _, _, err := svcauth.Resolve(*tokenFile, false)
	if err != nil {
		return cliflag.Errorf("--service-token-file: %v", err)
	}
	svc, err := remote.Dial(*access, *bsl, remote.Options{Timeout: *timeout, Auth: svcauth.Client{Token: token}})
	if err != nil {
		return cliflag.Errorf("--bsl %s: %v", *bsl, err)
	}
	defer svc.Close()
	if err := smartclient.Reachable(ctx, svc, *timeout); err != nil {
		return cliflag.Errorf("--bsl %s: the services host does not answer over %s: %v", *bsl, *access, err)
	}
	if *batch != "" {
		if *password == "" {
			return cliflag.Errorf("--batch needs --password (and --uid)")
		}
		cctx, cancel := context.WithTimeout(ctx, 4**timeout)
		defer cancel()
		text, err := tui.Batch(cctx, svc, *batch, *uid, *password, syms)
		if err != nil {
			if strings.HasPrefix(err.Error(), "unknown screen") {
				return cliflag.Errorf("--batch: %v", err)
			}
			return err
		}
		fmt.Print(text)
		return nil
	}
	m := tui.New(svc, tui.Options{Describe: *access + " → " + *bsl, Stream: *streamURL, CallTimeout: *timeout,
		UserID: *uid, Password: *password, Symbols: syms})
	_, err = tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted: a normal way to leave
	}
	return err
}
