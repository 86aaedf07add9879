package driver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/untrusted"
)

// FuzzReadTargetConfig reads any body as a target's /trade/config.json (the preflight keeps it
// in the results' disclosure and the report flattens it). Beyond not panicking: what is kept is
// one valid JSON object within the nesting bound, and a copy: never the client's buffer, which
// the next response overwrites.
func FuzzReadTargetConfig(f *testing.F) {
	for _, s := range []string{
		`{"store":{"kind":"sqlite","data_set":{"accounts":500000,"quotes":100000}},"orders":{"mode":"sync"}}`,
		`{"store":{"data_set":{"accounts":-1,"quotes":1e3}}}`,
		`{"store":"x"}`,
		`{"a":"\"","b":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`[1]`, ` {"x":1} `, `{"x":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in := append([]byte(nil), body...)
		tc := readTargetConfig(in)
		if tc == nil {
			return
		}
		for i := range in {
			in[i] = 'x' // the client's buffer is reused for the next response
		}
		if !json.Valid(tc.raw) || tc.raw[0] != '{' || untrusted.CheckJSON(tc.raw, untrusted.MaxDepth) != nil {
			t.Fatalf("kept a config that is not one bounded JSON object: %q", tc.raw)
		}
	})
}
