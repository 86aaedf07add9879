// Package scenarios holds the built-in scenarios, embedded in the binary as the same YAML files
// users write (see driver/scenario for the format).
package scenarios

import (
	"embed"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Get returns a built-in scenario's YAML by name (e.g. "stocktrader").
func Get(name string) ([]byte, bool) {
	b, err := files.ReadFile(name + ".yaml")
	return b, err == nil
}

// Names lists the built-in scenarios.
func Names() []string {
	ents, _ := files.ReadDir(".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}
