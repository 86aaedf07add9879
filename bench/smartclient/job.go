package smartclient

import (
	"context"
	"strconv"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Job is the smart client load as the driver runs it (drive --scenario client): virtual users
// calling a services host over Access, under the drive's phases (the think time's default is
// DefaultThink), through the one pipeline (preflight, repeats, live views, run rules,
// interruption) like every other workload. Its load shape is the drive's alone: drive's flags
// set it, so the Job carries none.
type Job struct {
	// Access is the transport to the business services: soap, rest or grpc.
	Access string
	// BSL is the services host's endpoint for Access (host:port).
	BSL string
	// Token is the deployment's service token ("" = none).
	Token string
	// Params are the scenario's parameters: users and quotes (the loaded data set's sizes),
	// password and quantity; the others are refused.
	Params map[string]string
}

// Run drives the job under the drive d (its phases included), through driver.Drive.
func Run(ctx context.Context, j Job, d driver.Config) (*report.Results, error) {
	return driver.Drive(ctx, d, &j)
}

// params are the scenario's parameters, the data set's defaults overridden by j.Params.
func (j *Job) params() (map[string]string, error) {
	spec := dataset.DefaultSpec()
	params := map[string]string{"users": strconv.Itoa(spec.Accounts), "quotes": strconv.Itoa(spec.Quotes), "password": dataset.Password, "quantity": "100"}
	for k, v := range j.Params {
		if _, ok := params[k]; !ok {
			return nil, setting.Errorf("Params", "%s: the client scenario's parameters are users, quotes, password and quantity", k)
		}
		params[k] = v
	}
	return params, nil
}

// Prepare implements driver.Workload: it checks the settings and dials the services host
// (nothing is sent yet); the preflight asks it for a quote.
func (j *Job) Prepare(ctx context.Context, cfg *driver.Config) (*driver.Run, error) {
	switch j.Access {
	case remote.SOAP, remote.REST, remote.GRPC:
	default:
		return nil, setting.Errorf("Access", "%q is not a transport of the business services: use soap, rest or grpc", j.Access)
	}
	if j.BSL == "" {
		return nil, setting.Errorf("BSL", "the services host's %s endpoint (host:port) is required", j.Access)
	}
	if cfg.Peak != nil {
		return nil, setting.Errorf("Peak", "the client scenario runs one load level; step the users yourself")
	}
	params, err := j.params()
	if err != nil {
		return nil, err
	}
	accounts, err1 := strconv.Atoi(params["users"])
	quotes, err2 := strconv.Atoi(params["quotes"])
	qty, err3 := strconv.ParseInt(params["quantity"], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || accounts < 1 || quotes < 1 || qty < 1 {
		return nil, setting.Errorf("Params", "users, quotes and quantity must be positive whole numbers")
	}
	think := cfg.ThinkOr(scenario.Think{Kind: scenario.ThinkFixed, A: DefaultThink})
	users := cfg.Users
	if cfg.Rate > 0 {
		if cfg.MaxInFlight == 0 {
			cfg.MaxInFlight = min(load.DefaultMaxInFlight, accounts)
		}
		users = cfg.MaxInFlight
	}
	c := Config{Accounts: accounts, Quotes: quotes, Password: params["password"], Quantity: qty, Think: think, Seed: cfg.Seed}
	if users > accounts {
		return nil, setting.Errorf("Users", "%d virtual users but %d accounts: each user needs an account of its own", users, accounts)
	}
	svc, err := remote.Dial(j.Access, j.BSL, remote.Options{Timeout: cfg.Timeout, Auth: svcauth.Client{Token: j.Token}})
	if err != nil {
		return nil, setting.Errorf("BSL", "%s: %v", j.BSL, err)
	}
	c.Service = svc
	c.SetDefaults()
	return &driver.Run{Name: Name, Target: j.Access + "://" + j.BSL, Users: c,
		Steps: &steps{j: j, svc: svc, params: params, timeout: cfg.Timeout, think: think, seed: c.Seed}}, nil
}

// steps are the smart client's part of a run: the services host tried once, the results' settings,
// the connection closed.
type steps struct {
	j       *Job
	svc     remote.Client
	params  map[string]string
	timeout time.Duration
	think   scenario.Think
	seed    uint64
}

// Preflight implements driver.Preflighter: the services host must answer over the transport.
func (s *steps) Preflight(ctx context.Context, _ *driver.Config, _ *driver.Run) error {
	if err := remote.Reachable(ctx, s.svc, s.timeout); err != nil {
		return setting.Errorf("BSL", "%s: the services host does not answer over %s: %v", s.j.BSL, s.j.Access, err)
	}
	return nil
}

// Describe implements driver.Steps.
func (s *steps) Describe(_ context.Context, res *report.Results) error {
	j := s.j
	res.Workload, res.Scenario, res.Target = Workload, Name, j.Access+"://"+j.BSL
	res.Settings.Think = s.think.String()
	res.Settings.Params = s.params
	res.Settings.Timeout = s.timeout.String()
	res.Settings.Seed = s.seed
	var err error
	res.Settings.Workload, err = report.Section(Settings{Access: j.Access, BSL: j.BSL})
	return err
}

// Close releases the connection to the services host.
func (s *steps) Close() error { return s.svc.Close() }
