package main

import (
	"errors"
	"flag"
	"testing"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade/server"
)

// TestOrderFlags: serve's order flags bind to a valid server.Config or one whose Validate gives a
// *setting.Error that serveFlags maps to the flag (catches a field missing from serveFlags). A concurrency or batch
// of 0 is the default, as orders.Config has it (one rule: the flags once refused what the
// library accepted); out of range is refused by orders.Config.Validate alone.
func TestOrderFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string // "" = valid
	}{
		{nil, ""},
		{[]string{"--orders", "async-durable", "--nats", "nats://127.0.0.1:4222"}, ""},
		{[]string{"--orders", "durable"}, "orders"},
		{[]string{"--nats", "127.0.0.1:4222"}, "nats"},
		{[]string{"--concurrency", "0", "--batch", "0"}, ""},
		{[]string{"--concurrency", "-1"}, "concurrency"},
		{[]string{"--batch", "10001"}, "batch"},
		{[]string{"--nats-port", "4222"}, "nats-port"}, // sync: no embedded broker to put there
		{[]string{"--nats-port", "4222", "--orders", "async-volatile"}, ""},
		{[]string{"--nats-port", "65536", "--orders", "async-volatile"}, "nats-port"},
	} {
		c := server.DefaultConfig()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		registerOrderFlags(fs, &c)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := c.Validate()
		if (err == nil) != (tc.flag == "") {
			t.Fatalf("%v: %+v, %v", tc.args, c.Orders, err)
		}
		if err == nil {
			continue
		}
		var se *setting.Error
		if !errors.As(err, &se) || serveFlags[se.Field] != tc.flag {
			t.Errorf("%v: %v does not map to --%s", tc.args, err, tc.flag)
		}
	}
}
