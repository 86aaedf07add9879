package wsserver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/wstest"
)

// Limits out of bounds are refused before anything listens, naming the field: a body limit
// under 1 KB or over 1 GB, more items than a gRPC list can nest. Zero is the default.
// (Mutant wsserver-max-items-unbounded: MaxItems above 9000 is served, and no gRPC list that
// long could arrive.)
func TestStartRefusesLimitsOutOfBounds(t *testing.T) {
	for _, tc := range []struct {
		lim   wstest.Limits
		field string
	}{
		{wstest.Limits{MaxBodyBytes: 1023}, "MaxBodyBytes"},
		{wstest.Limits{MaxBodyBytes: 1<<30 + 1}, "MaxBodyBytes"},
		{wstest.Limits{MaxBodyBytes: -1}, "MaxBodyBytes"},
		{wstest.Limits{MaxItems: 9001}, "MaxItems"},
		{wstest.Limits{MaxItems: -5}, "MaxItems"},
	} {
		// on port 0 a Start that went ahead would succeed: only the check can fail it
		ctx, cancel := context.WithCancel(context.Background())
		r, err := Start(ctx, Config{Listen: "127.0.0.1:0", Limits: tc.lim})
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != tc.field {
			t.Errorf("%+v: Start = %v, want a setting error of %s", tc.lim, err, tc.field)
		}
		cancel()
		if r != nil {
			r.Wait()
		}
	}
	for _, ok := range []wstest.Limits{{}, {MaxBodyBytes: 1024, MaxItems: 1}, {MaxBodyBytes: 1 << 30, MaxItems: 9000}} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

// A started server logs one line saying where each encoding listens, so a script (or the
// command's test) can read the addresses of a server started on port 0.
// (Mutant wsserver-start-line-no-grpc: the line leaves out the gRPC address.)
func TestStartLogsWhereItListens(t *testing.T) {
	var buf bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	r, err := Start(ctx, Config{Listen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	line := strings.SplitN(buf.String(), "\n", 2)[0]
	for _, want := range []string{"wstest serving", "soap=http://" + r.HTTPAddr.String() + "/wstest/soap",
		"json=http://" + r.HTTPAddr.String() + "/wstest/json/{op}", "grpc=" + r.GRPCAddr.(*net.TCPAddr).String()} {
		if !strings.Contains(line, want) {
			t.Errorf("start-up line %q lacks %q", line, want)
		}
	}
}
