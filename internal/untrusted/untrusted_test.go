package untrusted

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckJSONDepth: the depth bound counts brackets outside strings only, and an escaped quote
// does not end a string — else a hostile file hides deep nesting behind "\"" (the check sees the
// brackets as inside a string) and passes the bound. Mutant: untrusted-json-escape-unskipped.
func TestCheckJSONDepth(t *testing.T) {
	deep := strings.Repeat("[", 20) + strings.Repeat("]", 20)
	for _, c := range []struct {
		doc     string
		tooDeep bool
	}{
		{`{"a":[1,2,{"b":[]}]}`, false},
		{`{"a":"[[[[[[[[[[[[[[[[[[[[[[[[["}`, false}, // brackets in a string are text
		{`{"a":"\\", "b":"[[[[[[[[[[[[[[[["}`, false},
		{deep, true},
		{`{"a":"\"", "b":` + deep + `}`, true}, // hidden behind an escaped quote
		{`{"a":"x\"y\"", "b":` + deep + `}`, true},
	} {
		err := CheckJSON([]byte(c.doc), 10)
		if got := errors.Is(err, ErrTooDeep); got != c.tooDeep {
			t.Errorf("CheckJSON(%.40q…) = %v, want too deep %v (nesting hidden behind an escape?)", c.doc, err, c.tooDeep)
		}
	}
}
