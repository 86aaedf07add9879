// Package suggest says what a user probably meant by a name that is none of the known ones: the
// kit's one "did you mean" — for commands, flags, scenarios and every enumerated value (access
// modes, order modes, redirect policies, formats, parameters).
package suggest

import (
	"fmt"
	"strings"
)

// Distance is the Levenshtein distance between a and b (bytes).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest is the known name closest to name, or "" when none is close enough to be what was
// meant: within a third of its length (at least 2 edits), or name a prefix of it of 3 or more
// letters; case aside, a name is its own nearest. Ties go to the name first in order.
func Nearest(name string, known []string) string {
	best, bd := "", -1
	for _, k := range known {
		d := Distance(name, k)
		if strings.EqualFold(name, k) {
			d = 0
		}
		if len(name) >= 3 && len(k) > len(name) && k[:len(name)] == name {
			d = min(d, 1)
		}
		if bd < 0 || d < bd {
			best, bd = k, d
		}
	}
	if bd < 0 || bd > max(2, len(name)/3) || bd >= len(name) {
		return ""
	}
	return best
}

// DidYouMean is " (did you mean X?)" for the known name nearest to name, or "".
func DidYouMean(name string, known []string) string {
	if n := Nearest(name, known); n != "" {
		return fmt.Sprintf(" (did you mean %s?)", n)
	}
	return ""
}
