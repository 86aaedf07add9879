package cliflag

import "strings"

// Strings collects a repeatable flag's values in order (-H 'A: 1' -H 'B: 2'); a value is kept
// whole, commas and all.
type Strings []string

func (l *Strings) String() string     { return strings.Join(*l, "; ") }
func (l *Strings) Set(s string) error { *l = append(*l, s); return nil }

// Comma is a list flag given comma-separated (--live-allow-host a,b): items are trimmed and
// empty ones dropped; given again, it adds to the list.
type Comma []string

func (l *Comma) String() string { return strings.Join(*l, ",") }
func (l *Comma) Set(s string) error {
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}
