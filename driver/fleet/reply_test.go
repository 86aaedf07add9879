package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// A reply answers one request: sealed over that request's inbox, it does not open as the answer
// to another. A responder that first replays an "OK" sealed the old way (over the request's
// subject, as a captured earlier reply would be), then sends junk, then the real refusal: the
// request returns the refusal. Mutant: request opening replies over the request's subject — the
// replayed OK is taken and the refusal hidden.
func TestReplyBoundToItsRequest(t *testing.T) {
	b := broker(t)
	nc := connect(t, b.URL())
	const subj = prefix + ".agent.a1.assign"
	replayed := testSeal.seal(replySubject(subj), Reply{Header: header(), OK: true})
	sub, err := nc.Subscribe(subj, func(m *nats.Msg) {
		_ = nc.Publish(m.Reply, replayed)
		_ = nc.Publish(m.Reply, []byte("junk"))
		_ = m.Respond(testSeal.seal(replySubject(m.Reply), Reply{Header: header(), OK: false, Error: "refused"}))
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	// The subscription must reach the server before the request from the other connection,
	// or the request finds no responder.
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rep Reply
	if err := testSeal.request(ctx, connect(t, b.URL()), subj, []byte("{}"), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.OK || rep.Error != "refused" {
		t.Errorf("reply %+v: want the real refusal, not the replayed OK", rep)
	}
}
