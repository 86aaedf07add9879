package tui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// TestConfigNamesTheField: the smart client's settings are checked in the library, each bad one
// a *setting.Error naming its field (the command maps it to the flag), before anything is
// dialled; a zero timeout or symbol list is the default, as everywhere; a host that does not
// answer is an error of BSL.
// Mutant: tui-batch-screen-unchecked (an unknown --batch screen reaches the host) → "Batch".
func TestConfigNamesTheField(t *testing.T) {
	ok := Config{Access: "rest", BSL: "127.0.0.1:1"}
	for _, tc := range []struct {
		change func(*Config)
		field  string
	}{
		{func(c *Config) {}, ""},
		{func(c *Config) { c.Access = "corba" }, "Access"},
		{func(c *Config) { c.Access = "inprocess" }, "Access"},
		{func(c *Config) { c.BSL = "" }, "BSL"},
		{func(c *Config) { c.CallTimeout = -time.Second }, "CallTimeout"},
		{func(c *Config) { c.Stream = "127.0.0.1:8080" }, "Stream"},
		{func(c *Config) { c.Symbols = make([]string, 101) }, "Symbols"},
		{func(c *Config) { c.Batch, c.Password = "nope", "xxx" }, "Batch"},
		{func(c *Config) { c.Batch = "home" }, "Password"},
	} {
		c := ok
		tc.change(&c)
		err := c.Validate()
		var se *setting.Error
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case tc.field != "" && (!errors.As(err, &se) || se.Field != tc.field):
			t.Errorf("%+v: %v; want an error of %s", c, err, tc.field)
		}
	}
	c := ok
	c.SetDefaults()
	if c.CallTimeout != clientopt.DefaultTimeout || len(c.Symbols) != len(DefaultSymbols) {
		t.Errorf("defaults: timeout %v, symbols %v", c.CallTimeout, c.Symbols)
	}
	t.Setenv(svcauth.EnvToken, "")
	t.Chdir(t.TempDir())
	c.Batch, c.Password = "home", "xxx"
	err := Run(context.Background(), c, io.Discard)
	var se *setting.Error
	if !errors.As(err, &se) || se.Field != "BSL" || !strings.Contains(err.Error(), "does not answer") {
		t.Errorf("a host that does not answer: %v; want an error of BSL", err)
	}
}
