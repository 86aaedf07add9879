package fleet

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// Every fleet message is sealed: its wire form is an HMAC-SHA256 of the subject it travels on
// and its JSON, keyed with the fleet secret (the NATS token, natsx), then a dot, then the JSON.
// A client that reaches the broker without the secret (a shared broker, or one whose token
// leaked but not to it) can neither command an agent nor alter a result: a message it sends
// fails the check and is dropped. The subject is in the MAC, and agent and run ids are in the
// subjects, so a sealed message cannot be replayed to another agent, verb or run; replies are
// sealed over the request's subject. An agent refuses to be assigned a run it has seen before,
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

// replySubject is what a reply to a request on subject is sealed over.
func replySubject(subject string) string { return subject + ".reply" }
