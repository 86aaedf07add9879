package driver

import (
	"time"

	"github.com/tradebench/tradebench/internal/httpc"
)

// Defaults of `tradebench drive` (the command line starts from these).
const (
	DefaultUsers      = 10          // closed-model virtual users driving a scenario
	DefaultQuickUsers = 50          // quick mode's (one URL, like wrk/hey) users
	DefaultDuration   = time.Minute // the measured steady state
	DefaultTimeout    = httpc.DefaultTimeout
	DefaultScenario   = "stocktrader"
)
