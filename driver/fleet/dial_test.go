package fleet

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/setting"
)

// TestDialNamesTheFieldAndLeavesNothing: Dial's errors are *setting.Error naming Broker's
// fields (the command maps them to its flags; the library names none), and a token file it
// generated for an embedded broker that would not start is removed again, while one it
// generated for a broker that started stays (agents read it). Join refuses an agent without
// a broker URL or token, naming the field.
// Mutant: fleet-dial-keeps-token (the generated file is not removed) → "left ... behind".
func TestDialNamesTheFieldAndLeavesNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(natsx.EnvToken, "")
	cc := ControllerConfig{Agents: 1}
	field := func(err error) string {
		var se *setting.Error
		if !errors.As(err, &se) {
			t.Fatalf("%v is not a *setting.Error", err)
		}
		return se.Field
	}
	for _, tc := range []struct {
		b    Broker
		want string
	}{
		{Broker{}, "URL"},
		{Broker{URL: "nats://127.0.0.1:1", Listen: "127.0.0.1:0"}, "Listen"},
		{Broker{Listen: "nowhere"}, "Listen"},
		{Broker{URL: "nats://127.0.0.1:1"}, "TokenFile"}, // no token: none is generated to join a broker
		{Broker{URL: "nats://127.0.0.1:1", TokenFile: "missing"}, "TokenFile"},
	} {
		c, stop, err := Dial(tc.b, cc)
		stop()
		if c != nil || field(err) != tc.want {
			t.Errorf("%+v: %v; want an error of %s", tc.b, err, tc.want)
		}
		if _, err := os.Stat(natsx.DefaultTokenFile); err == nil {
			t.Fatalf("%+v: left %s behind", tc.b, natsx.DefaultTokenFile)
		}
	}
	c, stop, err := Dial(Broker{Listen: "127.0.0.1:0"}, cc)
	if err != nil || c == nil {
		t.Fatal(err)
	}
	stop()
	if _, err := os.Stat(natsx.DefaultTokenFile); err != nil {
		t.Fatalf("the started broker's token file: %v", err)
	}
	// the token file exists now: a broker that cannot be reached is the URL's fault
	if _, stop, err := Dial(Broker{URL: "nats://127.0.0.1:1"}, cc); field(err) != "URL" {
		t.Errorf("an unreachable broker: %v; want an error of URL", err)
	} else {
		stop()
	}
	for _, tc := range []struct {
		b    Broker
		want string
	}{{Broker{}, "URL"}, {Broker{URL: "nats://127.0.0.1:1", Listen: ":0"}, "Listen"}, {Broker{URL: "nats://127.0.0.1:1", TokenFile: "missing"}, "TokenFile"}} {
		if err := Join(context.Background(), tc.b, AgentConfig{}); field(err) != tc.want {
			t.Errorf("Join %+v: %v; want an error of %s", tc.b, err, tc.want)
		}
	}
}
