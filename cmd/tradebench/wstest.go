package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/bench/wstestjob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/wstest"
	"github.com/tradebench/tradebench/wstest/wsserver"
)

func init() {
	register(&command{name: "wstest", summary: "WSTest: the web-service serialization benchmark (serve, drive, configs)", run: runWSTest})
}

var wstestUsage = helpText("wstest.txt")

func runWSTest(ctx context.Context, args []string) error {
	return cliflag.RunSubcommand(ctx, args, wstestUsage,
		cliflag.Subcommand{Name: "serve", Run: wstestServe}, cliflag.Subcommand{Name: "drive", Run: wstestDrive},
		cliflag.Subcommand{Name: "configs", Run: func(_ context.Context, args []string) error { return wstestConfigs(args) }})
}

func wstestServe(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench wstest serve", "[--listen ADDR] [--grpc-listen ADDR]")
	cliflag.SetHelp(fs, helpText("wstest-serve.txt"))
	listen := fs.String("listen", wsserver.DefaultListen, "HTTP address for SOAP (/wstest/soap) and JSON (/wstest/json/{op})")
	grpcListen := fs.String("grpc-listen", wsserver.DefaultGRPCListen, "gRPC address (empty: no gRPC)")
	maxBody := fs.Int64("max-body", wstest.DefaultMaxBodyBytes, "largest request body in bytes, 1024 to 1073741824 (bigger ones get a fault)")
	metricsListen := metricsListenFlag(fs)
	maxItems := fs.Int("max-items", wstest.DefaultMaxItems, "most array elements, list nodes (so Next nesting) or GetOrder line items in one request, 1 to 9000")
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	log := slog.New(logsafe.Handler(slog.NewTextHandler(os.Stderr, nil))) // request values cut and escaped
	r, err := wsserver.Start(ctx, wsserver.Config{Listen: *listen, GRPCListen: *grpcListen,
		Limits: wstest.Limits{MaxBodyBytes: *maxBody, MaxItems: *maxItems}, Log: log, MetricsListen: *metricsListen})
	if err != nil {
		return wstestServeFlags.OrUsage(err)
	}
	return r.Wait()
}

// wstestServeFlags names the flags that set wstest.Limits' fields.
var wstestServeFlags = cliflag.Names{"MaxBodyBytes": "max-body", "MaxItems": "max-items"}

func wstestConfigs(args []string) error {
	fs := cliflag.NewFlagSet("tradebench wstest configs", "[NAME]")
	if err := cliflag.Parse(fs, args, true); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		fmt.Print(wstestjob.ConfigTable())
		return nil
	case 1:
		data, err := wstestjob.BuiltinText(fs.Arg(0))
		if err != nil {
			return cliflag.Errorf("%v", err)
		}
		fmt.Print(data)
		return nil
	}
	return cliflag.Errorf("configs takes at most one name")
}

// wstestFlagKeys maps drive flags to the old kit's INI keys they override.
var wstestFlagKeys = map[string]string{"list-size": "ListSize", "num-bytes": "NumBytes", "message-size": "MessageSize",
	"encoding": "Encoding", "methodology": "Methodology"}

// wstestDriveFlags names the flags that set wstestjob.Config's fields.
var wstestDriveFlags = cliflag.Names{"Target": "target", "GRPCTarget": "grpc", "Repeat": "repeat"}.With(phaseNames)

var wstestDriveHelp = helpText("wstest-drive.txt")

func wstestDrive(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench wstest drive", "--target URL [--grpc HOST:PORT] [--config NAME|FILE.ini] [flags]")
	target := fs.String("target", "", "the WSTest service's HTTP base URL, e.g. http://127.0.0.1:8080 (SOAP and JSON)")
	grpcTarget := fs.String("grpc", "", "the WSTest service's gRPC address host:port (--encoding grpc)")
	soapPath := fs.String("soap-path", "/wstest/soap", "SOAP endpoint path on --target (another WSTest implementation's, e.g. /WSTest/TestService.asmx)")
	config := fs.String("config", "", "INI file with the old kit's keys (Agents, RampUp, SteadyState, RampDown, EchoVoidMix, EchoStructMix, EchoListMix, EchoSyntheticMix, GetOrderMix, ListSize, NumBytes, plus MessageSize, Encoding, Methodology, ThinkTime), or a built-in name: "+strings.Join(wstestjob.Builtins(), ", ")+"; flags override it")
	fs.String("encoding", wstestjob.SOAP, "soap | json | grpc")
	fs.String("methodology", wstestjob.Sun, fmt.Sprintf("sun: %d users with no think time on kept-alive connections (WSTest 1.0); users: %d users, %v think time, connection closed after every request (WSTest 1.1's 50 clients)", wstestjob.DefaultSunAgents, wstestjob.DefaultUsersAgents, wstestjob.DefaultUsersThink))
	mix := fs.String("mix", "EchoList=100", "operation weights, e.g. EchoList=80,EchoStruct=20 (replaces the config's mix)")
	fs.String("list-size", strconv.Itoa(wstestjob.DefaultListSize), "EchoStruct array and EchoList length (ListSize)")
	fs.String("num-bytes", strconv.Itoa(wstestjob.DefaultNumBytes), "EchoSynthetic byte array length (NumBytes)")
	fs.String("message-size", strconv.Itoa(wstestjob.DefaultMessageSize), "GetOrder line items")
	timeout := fs.Duration("timeout", httpc.DefaultTimeout, "bound on one request")
	var f pipelineFlags
	f.register(fs, driver.Phases{RampUp: wstestjob.DefaultRampUp, Duration: wstestjob.DefaultSteady, RampDown: wstestjob.DefaultRampDown}, "")
	cliflag.SetHelp(fs, wstestDriveHelp)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	d, err := f.config()
	if err != nil {
		return err
	}
	var s wstestjob.Settings
	name := ""
	if *config != "" {
		if name, err = wstestjob.LoadINI(*config, &s); err != nil {
			return cliflag.Errorf("--config: %v", err)
		}
	}
	given := cliflag.Given(fs)
	for name, key := range wstestFlagKeys {
		if given[name] {
			s.Set(key, fs.Lookup(name).Value.String(), "--"+name)
		}
	}
	if given["mix"] {
		if err := wstestjob.SetMix(&s, *mix, "--mix"); err != nil {
			return cliflag.Errorf("%v", err)
		}
	}
	cfg, err := wstestjob.Resolve(s)
	if err != nil {
		return cliflag.Errorf("%v", err)
	}
	f.phases.over(&cfg.Phases) // the flags win over the file
	cfg.Name, cfg.Target, cfg.GRPCTarget, cfg.SOAPPath, cfg.Timeout = name, *target, *grpcTarget, *soapPath, *timeout
	if err := cfg.Validate(); err != nil {
		return wstestDriveFlags.UsageError(err)
	}
	fmt.Fprintln(os.Stderr, cfg.Header())
	res, err := wstestjob.Run(ctx, *cfg, d)
	return f.finish(res, wstestDriveFlags.OrUsage(err))
}
