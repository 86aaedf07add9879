package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/untrusted"
)

// MaxTargetConfig bounds the target's /trade/config.json the preflight reads (tradebench's own is
// a few KB); a longer one is not read past the bound, and not kept.
const MaxTargetConfig = untrusted.MaxSmallFile

// PreflightTimeout bounds the preflight's request to the target's configuration page; the
// scenario's first request has the drive's own Timeout.
const PreflightTimeout = 5 * time.Second

// PreflightError is a target that did not pass the preflight: the scenario's first request,
// tried once before any load, failed. Nothing was run; like a bad flag, its exit status is 2.
type PreflightError struct {
	Target      string
	Transaction string // the scenario's first transaction
	Err         error
	// Quick: the drive was quick mode's one URL, which only a failed connection refuses.
	Quick bool
}

func (e *PreflightError) Error() string {
	if e.Quick {
		return fmt.Sprintf("preflight: %s failed before any load: %v — is the target up and the URL right?", e.Target, e.Err)
	}
	what := "the scenario's first request"
	if e.Transaction != "" {
		what = fmt.Sprintf("the scenario's first transaction (%s)", e.Transaction)
	}
	return fmt.Sprintf("preflight: %s against %s failed before any load: %v — is the target up, is it the system the scenario expects, and are the scenario's parameters (--set) within its data set?", what, e.Target, e.Err)
}

func (e *PreflightError) Unwrap() error { return e.Err }

// Preflight tries the scenario's first transaction once, as a new virtual user, and returns a
// *PreflightError when it fails (a dead port, a wrong page, a login refused).
func (p *Plan) Preflight(ctx context.Context) error {
	name, err := p.w.Probe(ctx)
	if err == nil {
		// quick mode's request passes on any HTTP answer (scenario.Check.AnyStatus), as for wrk:
		// only a connection that fails refuses its run
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	target := p.target
	if p.quick {
		target = p.cfg.URL
	}
	return &PreflightError{Target: dsn.Redact(target), Transaction: name, Err: err, Quick: p.quick}
}

// targetConfig is what the instrument reads of a tradebench target's /trade/config.json: the
// document as served (kept in the disclosure) and the data set it has loaded.
type targetConfig struct {
	raw   json.RawMessage
	store *struct {
		DataSet struct {
			Accounts int `json:"accounts"`
			Quotes   int `json:"quotes"`
		} `json:"data_set"`
	}
}

// fetchTargetConfig asks the target for /trade/config.json through the run's own HTTP client
// settings (its TLS: --insecure reaches a self-signed target here as in the run); nil when it
// publishes none (a DayTrader) or it cannot be read: nothing is sized then, and nothing fails.
func fetchTargetConfig(ctx context.Context, target string, hopt httpc.Options) *targetConfig {
	u, err := url.Parse(strings.TrimSuffix(target, "/"))
	if err != nil {
		return nil
	}
	ep, err := httpc.ParseEndpoint(u)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), PreflightTimeout)
	defer cancel()
	c := httpc.NewClient(&hopt)
	defer c.CloseConn()
	// bounded while reading (MaxTargetConfig) and in its nesting before anything decodes it: the
	// target is not trusted, and its configuration is kept in the results and flattened by the
	// report (a 340 KB document nested 3,000 deep took a 3-second drive to 2.2 GiB)
	resp, err := c.Do(ctx, &ep, &httpc.Request{Method: http.MethodGet, Target: []byte(u.Path + "/trade/config.json"), KeepBody: true, MaxBody: MaxTargetConfig})
	if err != nil {
		return nil
	}
	defer c.ReleaseBody()
	if resp.Status != http.StatusOK {
		return nil
	}
	return readTargetConfig(resp.Body)
}

// readTargetConfig reads a target's config.json: nil unless it is one JSON object within the
// nesting bound (untrusted.MaxDepth). The document kept is a copy of b.
func readTargetConfig(b []byte) *targetConfig {
	doc := bytes.TrimSpace(b)
	if !bytes.HasPrefix(doc, []byte("{")) || untrusted.CheckJSON(doc, untrusted.MaxDepth) != nil || !json.Valid(doc) {
		return nil
	}
	tc := &targetConfig{raw: json.RawMessage(bytes.Clone(doc))}
	var body struct {
		Store json.RawMessage `json:"store"`
		// a web tier without a database reports its services host's data set under access
		Access json.RawMessage `json:"access"`
	}
	if json.Unmarshal(doc, &body) == nil {
		for _, part := range []json.RawMessage{body.Store, body.Access} {
			if len(part) > 0 && json.Unmarshal(part, &tc.store) == nil && tc.store != nil && tc.store.DataSet.Accounts > 0 {
				break
			}
			tc.store = nil
		}
	}
	return tc
}

// sizeParams are the scenario parameters a tradebench target's data set sizes: the built-in
// scenarios draw accounts uid:0…uid:users-1 and quotes s:0…s:quotes-1.
var sizeParams = []struct{ param, what string }{{"users", "accounts"}, {"quotes", "quotes"}}

// sizeFromTarget fills the scenario's users and quotes parameters from the target's data set
// when the drive does not give them, and refuses a given value beyond it. changed says params
// were added (the plan must be prepared again).
func sizeFromTarget(params map[string]string, declared func(string) bool, tc *targetConfig) (out map[string]string, changed bool, err error) {
	if tc == nil || tc.store == nil {
		return params, false, nil
	}
	have := map[string]int{"users": tc.store.DataSet.Accounts, "quotes": tc.store.DataSet.Quotes}
	out = make(map[string]string, len(params)+2)
	for k, v := range params {
		out[k] = v
	}
	for _, sp := range sizeParams {
		n := have[sp.param]
		if n <= 0 || !declared(sp.param) {
			continue
		}
		v, given := params[sp.param]
		if !given {
			out[sp.param] = strconv.Itoa(n)
			changed = true
			continue
		}
		if g, perr := strconv.Atoi(strings.TrimSpace(v)); perr == nil && g > n {
			return params, false, setting.Errorf("Params", "%s=%s is beyond the target's data set: it has %d %s (leave %s out to use them all)", sp.param, v, n, sp.what, sp.param)
		}
	}
	return out, changed, nil
}
