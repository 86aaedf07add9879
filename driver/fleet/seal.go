package fleet

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Every fleet message is sealed: its wire form is an HMAC-SHA256 of the subject it travels on
// and its JSON, keyed with the fleet secret (the NATS token, natsx), then a dot, then the JSON.
// A client that reaches the broker without the secret (a shared broker, or one whose token
// leaked but not to it) can neither command an agent nor alter a result: a message it sends
// fails the check and is dropped. The subject is in the MAC, and agent and run ids are in the
// subjects, so a sealed message cannot be replayed to another agent, verb or run; replies are
// sealed over the request's unique reply inbox, so a reply answers one request only. An agent refuses to be assigned a run it has seen before,
// so an old Assign replayed does not start its load again.
const macLen = 43 // base64 (raw URL) of 32 bytes

var errUnsealed = errors.New("message not sealed with the fleet secret")

// sealer seals and opens messages with one key. The zero value (no key) is refused by
// NewAgent and NewController's callers: see AgentConfig.Secret.
type sealer struct{ key []byte }

func (s sealer) mac(subject string, body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(subject))
	m.Write([]byte{0})
	m.Write(body)
	out := make([]byte, macLen)
	base64.RawURLEncoding.Encode(out, m.Sum(nil))
	return out
}

// seal is v's wire form on subject.
func (s sealer) seal(subject string, v any) []byte {
	body := encode(v)
	out := make([]byte, 0, macLen+1+len(body))
	out = append(out, s.mac(subject, body)...)
	out = append(out, '.')
	return append(out, body...)
}

// open checks data's seal for subject and decodes it into v.
func (s sealer) open(subject string, data []byte, v any) error {
	if len(data) < macLen+1 || data[macLen] != '.' {
		return errUnsealed
	}
	body := data[macLen+1:]
	if !hmac.Equal(data[:macLen], s.mac(subject, body)) {
		return errUnsealed
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("malformed message: %v", err)
	}
	return nil
}

// replySubject is what a reply is sealed over: the request's own reply inbox, unique to that
// request, so a reply cannot be replayed as the answer to another request (an old "OK" to an
// Assign hiding a later refusal).
func replySubject(inbox string) string { return inbox + ".reply" }

// request publishes data on subj and waits for the first reply that opens under the seal for
// its inbox, decoded into v. Replies that do not open — a client of a shared broker answering
// first with junk, or replaying an earlier reply — are ignored, not taken as the answer, so a
// stranger on the bus can neither forge an answer nor abort a run by answering first.
func (s sealer) request(ctx context.Context, nc *nats.Conn, subj string, data []byte, v any) error {
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return err
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(subj, inbox, data); err != nil {
		return err
	}
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return nats.ErrTimeout
			}
			return err
		}
		if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
			return nats.ErrNoResponders // the server's word that nobody listens on subj
		}
		if s.open(replySubject(inbox), m.Data, v) == nil {
			return nil
		}
	}
}
