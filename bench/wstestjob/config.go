// Package wstestjob is the WSTest load workload: virtual users that pick operations by the mix, call
// them over SOAP, JSON or gRPC, check every response is the right echo, and record one
// transaction per call, under either of the WSTest papers' methodologies. It is configured by the old
// kit's INI keys, by flags, or both (flags win).
package wstestjob

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/ini.v1"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/scenario"

	"github.com/tradebench/tradebench/wstest"
)

// Methodologies.
const (
	// Sun is WSTest 1.0's method: a few agents, no think time, each reusing one kept-alive
	// connection.
	Sun = "sun"
	// Users is WSTest 1.1's 50-client method: many users, a 1 s think time before each request
	// and the connection closed after every request.
	Users = "users"
)

// Encodings.
const (
	SOAP = "soap"
	JSON = "json"
	GRPC = "grpc"
)

// Defaults of a run, before the methodology's and the settings' values.
const (
	DefaultRampUp      = 10 * time.Second
	DefaultSteady      = 60 * time.Second
	DefaultRampDown    = 5 * time.Second
	DefaultListSize    = 20
	DefaultNumBytes    = 1024
	DefaultMessageSize = 50
	DefaultSunAgents   = 8   // the Sun methodology's agents
	DefaultUsersAgents = 100 // the users methodology's clients
	DefaultUsersThink  = time.Second
)

// Config is one WSTest run.
type Config struct {
	// Phases is the load shape: the old kit's Agents (Users), RampUp, SteadyState (Duration),
	// RampDown and ThinkTime (Think: before each request; nil = none).
	driver.Phases
	Name        string // the configuration's name (file or built-in), for the results
	Encoding    string
	Methodology string
	Mix         [wstest.NumOps]int // relative weights (the kit's percentages)
	ListSize    int                // EchoStruct array and EchoList length
	NumBytes    int                // EchoSynthetic byte array
	MessageSize int                // GetOrder line items
	KeepAlive   bool

	Target     string // HTTP base URL, e.g. http://127.0.0.1:8080
	GRPCTarget string // host:port
	SOAPPath   string // SOAP endpoint path (default /wstest/soap)
	Timeout    time.Duration
}

// Settings are raw key = value settings by canonical key, with where each came from.
type Settings struct {
	vals map[string]string
	from map[string]string
}

// Set records a setting (later sets win).
func (s *Settings) Set(key, value, from string) {
	if s.vals == nil {
		s.vals, s.from = map[string]string{}, map[string]string{}
	}
	s.vals[key], s.from[key] = value, from
}

// Keys, as the old kit spells them, plus tradebench's own.
var iniKeys = []string{"Agents", "RampUp", "SteadyState", "RampDown", "EchoVoidMix", "EchoStructMix", "EchoListMix",
	"EchoSyntheticMix", "GetOrderMix", "ListSize", "NumBytes", "MessageSize", "Encoding", "Methodology", "ThinkTime"}

var mixKeys = [wstest.NumOps]string{"EchoVoidMix", "EchoStructMix", "EchoListMix", "EchoSyntheticMix", "GetOrderMix"}

func normKey(k string) string {
	return strings.ToLower(strings.NewReplacer(" ", "", "\t", "", "_", "").Replace(k))
}

var knownKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range iniKeys {
		m[normKey(k)] = k
	}
	return m
}()

//go:embed configs/*.ini
var builtins embed.FS

// Builtins lists the embedded example configurations by name.
func Builtins() []string {
	ents, _ := fs.ReadDir(builtins, "configs")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".ini"))
	}
	sort.Strings(names)
	return names
}

// LoadINI reads a configuration file, or a built-in by name ("sun-echolist20"), into s.
// It returns the configuration's name.
func LoadINI(nameOrPath string, s *Settings) (string, error) {
	data, err := os.ReadFile(nameOrPath)
	name := nameOrPath
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		b, berr := builtins.ReadFile(path.Join("configs", strings.TrimSuffix(nameOrPath, ".ini")+".ini"))
		if berr != nil {
			return "", fmt.Errorf("config %q: no such file and no built-in of that name (built-ins: %s)", nameOrPath, strings.Join(Builtins(), ", "))
		}
		data = b
		name = strings.TrimSuffix(nameOrPath, ".ini")
	}
	return name, ParseINI(name, data, s)
}

// ParseINI reads INI text in the old kit's format (keys in [CONFIG] or at the top; # and ;
// comments) into s. Unknown keys are errors, so a typo is not silently ignored.
func ParseINI(name string, data []byte, s *Settings) error {
	f, err := ini.LoadSources(ini.LoadOptions{SpaceBeforeInlineComment: true, AllowShadows: true}, data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var secs []*ini.Section
	for _, sec := range f.Sections() {
		if sec.Name() == ini.DefaultSection || strings.EqualFold(sec.Name(), "config") {
			secs = append(secs, sec)
		}
	}
	seen := map[string]bool{}
	for _, sec := range secs {
		for _, k := range sec.Keys() {
			canon, ok := knownKeys[normKey(k.Name())]
			if !ok {
				return fmt.Errorf("%s: unknown key %q (known keys: %s)", name, k.Name(), strings.Join(iniKeys, ", "))
			}
			if seen[canon] || len(k.ValueWithShadows()) > 1 {
				return fmt.Errorf("%s: key %s is set more than once", name, canon)
			}
			seen[canon] = true
			s.Set(canon, strings.TrimSpace(k.Value()), name+": "+k.Name())
		}
	}
	return nil
}

// SetMix records a --mix value ("EchoList=80,EchoStruct=20"): it replaces the whole mix.
func SetMix(s *Settings, mix, from string) error {
	var w [wstest.NumOps]string
	for i := range w {
		w[i] = "0"
	}
	any := false
	for _, part := range strings.Split(mix, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			v = "100"
		}
		op, okOp := wstest.ParseOp(strings.TrimSpace(k))
		if !okOp {
			return fmt.Errorf("%s: unknown operation %q (use EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder)", from, k)
		}
		w[op] = strings.TrimSpace(v)
		any = true
	}
	if !any {
		return fmt.Errorf("%s: empty mix", from)
	}
	for i, k := range mixKeys {
		s.Set(k, w[i], from)
	}
	return nil
}

// ParseSeconds reads a duration: a plain number is seconds (as in the old kit), otherwise a Go
// duration ("90s", "5m").
func ParseSeconds(v string) (time.Duration, error) {
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n < 0 || n > 1e6 {
			return 0, fmt.Errorf("want 0 to 1000000 seconds")
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("want seconds or a duration like 90s")
	}
	if d < 0 {
		return 0, fmt.Errorf("must not be negative")
	}
	return d, nil
}

// Resolve turns settings into a Config: the methodology's defaults, then the settings.
func Resolve(s Settings) (*Config, error) {
	get := func(k string) (string, string, bool) {
		v, ok := s.vals[k]
		return v, s.from[k], ok
	}
	c := &Config{Encoding: SOAP, Methodology: Sun, ListSize: DefaultListSize, NumBytes: DefaultNumBytes, MessageSize: DefaultMessageSize,
		Phases: driver.Phases{RampUp: DefaultRampUp, Duration: DefaultSteady, RampDown: DefaultRampDown}}
	if v, from, ok := get("Methodology"); ok {
		switch strings.ToLower(v) {
		case Sun, "1":
			c.Methodology = Sun
		case Users, "2", "50-client":
			c.Methodology = Users
		default:
			return nil, fmt.Errorf("%s = %q: want sun (no think time, kept-alive connections) or users (1 s think time, connection closed after each request)", from, v)
		}
	}
	var think time.Duration
	if c.Methodology == Sun {
		c.Users, c.KeepAlive = DefaultSunAgents, true
	} else {
		c.Users, think, c.KeepAlive = DefaultUsersAgents, DefaultUsersThink, false
	}
	if v, from, ok := get("Encoding"); ok {
		switch strings.ToLower(v) {
		case SOAP, JSON, GRPC:
			c.Encoding = strings.ToLower(v)
		default:
			return nil, fmt.Errorf("%s = %q: want soap, json or grpc", from, v)
		}
	}
	intKey := func(k string, lo, hi int, dst *int) error {
		v, from, ok := get(k)
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%s = %q: want a whole number from %d to %d", from, v, lo, hi)
		}
		*dst = n
		return nil
	}
	durKey := func(k string, dst *time.Duration) error {
		v, from, ok := get(k)
		if !ok {
			return nil
		}
		d, err := ParseSeconds(v)
		if err != nil {
			return fmt.Errorf("%s = %q: %v", from, v, err)
		}
		*dst = d
		return nil
	}
	lim := wstest.DefaultLimits()
	for _, e := range []error{
		intKey("Agents", 1, 100000, &c.Users),
		intKey("ListSize", 0, lim.MaxItems, &c.ListSize),
		intKey("NumBytes", 0, 4<<20, &c.NumBytes),
		intKey("MessageSize", 0, lim.MaxItems, &c.MessageSize),
		durKey("RampUp", &c.RampUp),
		durKey("SteadyState", &c.Duration),
		durKey("RampDown", &c.RampDown),
		durKey("ThinkTime", &think),
	} {
		if e != nil {
			return nil, e
		}
	}
	if think > 0 {
		c.Think = &scenario.Think{Kind: scenario.ThinkFixed, A: think}
	}
	if c.Duration <= 0 {
		_, from, _ := get("SteadyState")
		return nil, fmt.Errorf("%s: the steady state must be longer than 0", from)
	}
	mixSet := false
	for _, k := range mixKeys {
		if _, _, ok := get(k); ok {
			mixSet = true
		}
	}
	if mixSet {
		total := 0
		for i, k := range mixKeys {
			if err := intKey(k, 0, 1000000, &c.Mix[i]); err != nil {
				return nil, err
			}
			total += c.Mix[i]
		}
		if total == 0 {
			return nil, errors.New("the mix is empty: give at least one operation a weight (e.g. EchoListMix = 100)")
		}
	} else {
		c.Mix[wstest.EchoList] = 100
	}
	return c, nil
}

// MixString renders the mix as "EchoList=100".
func (c *Config) MixString() string {
	var parts []string
	for _, op := range wstest.Ops() {
		if c.Mix[op] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", op, c.Mix[op]))
		}
	}
	return strings.Join(parts, ",")
}

// ConfigTable is 'wstest configs': the built-in configurations, one name a line, under how to
// run one.
func ConfigTable() string {
	var b strings.Builder
	b.WriteString("built-in WSTest configurations (run with: tradebench wstest drive --config NAME --target URL):\n")
	for _, n := range Builtins() {
		b.WriteString("  " + n + "\n")
	}
	return b.String()
}

// Header is the line a run starts with: the mix, the encoding, the methodology and the load.
func (c *Config) Header() string {
	return fmt.Sprintf("wstest %s over %s, %s methodology: %d users, think %v, keep-alive %v, list %d, bytes %d, ramp-up %v, steady %v, ramp-down %v",
		c.MixString(), c.Encoding, c.Methodology, c.Users, c.ThinkOr(scenario.Think{}).Mean(), c.KeepAlive, c.ListSize, c.NumBytes, c.RampUp, c.Duration, c.RampDown)
}

// BuiltinText returns a built-in configuration's INI text.
func BuiltinText(name string) (string, error) {
	b, err := builtins.ReadFile(path.Join("configs", strings.TrimSuffix(name, ".ini")+".ini"))
	if err != nil {
		return "", fmt.Errorf("no built-in configuration %q (built-ins: %s)", name, strings.Join(Builtins(), ", "))
	}
	return string(b), nil
}
