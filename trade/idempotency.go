package trade

import (
	"context"
	"crypto/rand"
	"encoding/base64"
)

// IdempotencyHeader is the HTTP header a client names a state-changing request with (as in the
// IETF draft "The Idempotency-Key HTTP Header Field"); the web tier's pages carry the same key
// in the hidden form field IdempotencyField, and the SOAP and REST transports in this header,
// gRPC in the metadata of the same name in lower case. The field's name is short because every
// buy form of a quotes page repeats it, and that page must fit one write (docs/benchmarks.md).
const (
	IdempotencyHeader = "Idempotency-Key"
	IdempotencyField  = "idem"
)

// MaxIdempotencyKeyLen bounds a key: long enough for any UUID or random token, short enough
// that a stored key costs little.
const MaxIdempotencyKeyLen = 128

// RequestKind is what a keyed request did: the kinds that change state.
type RequestKind string

const (
	KindBuy      RequestKind = "buy"
	KindSell     RequestKind = "sell"
	KindRegister RequestKind = "register"
	KindProfile  RequestKind = "profile"
)

// RequestKey is what the store keeps of one keyed request: its key (unique), what it did, for
// whom, and the order it placed (0 for a registration or a profile update). A second request
// with the same key finds it and is answered with the first one's outcome, placing nothing.
type RequestKey struct {
	Key     string      `json:"key"`
	Kind    RequestKind `json:"kind"`
	UserID  string      `json:"userID"`
	OrderID int64       `json:"orderID,omitempty"`
}

type idempotencyKey struct{}

// WithIdempotencyKey records in ctx the key a state-changing call is made under: Buy, Sell,
// Register (and RegisterAndLogin) and UpdateAccountProfile then place their effect at most once
// per key, and every remote transport carries the key to the services host with the call. An
// empty key records nothing: the call is not keyed, as DayTrader's URLs are not.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	if key == "" {
		return ctx
	}
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// IdempotencyKeyOf is the key recorded by WithIdempotencyKey ("" = none).
func IdempotencyKeyOf(ctx context.Context) string {
	k, _ := ctx.Value(idempotencyKey{}).(string)
	return k
}

// ValidateIdempotencyKey refuses a key that is too long or is not printable ASCII without
// spaces (it travels in headers and is stored).
func ValidateIdempotencyKey(key string) error {
	if len(key) > MaxIdempotencyKeyLen {
		return Errorf(CodeInvalid, "idempotency key is longer than %d characters", MaxIdempotencyKeyLen)
	}
	for _, c := range []byte(key) {
		if c <= ' ' || c >= 0x7f {
			return Errorf(CodeInvalid, "idempotency key must be printable ASCII without spaces")
		}
	}
	return nil
}

// NewIdempotencyKey returns a random key (128 bits, base64url): what a page renders into its
// forms and what a client sends per request.
func NewIdempotencyKey() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
