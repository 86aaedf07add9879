package main

import (
	"embed"
	"strings"
)

// The commands' help texts live in help/*.txt, one file per command, so they read (and are reviewed)
// as the prose they are; the Go files keep only the flags and the code.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText returns the help file help/NAME with each placeholder of oldnew (pairs, as
// strings.NewReplacer takes them) replaced: a default that lives in code is written once, there.
// A missing file is a build mistake, caught by every --help test: it panics at start-up.
func helpText(name string, oldnew ...string) string {
	b, err := helpFiles.ReadFile("help/" + name)
	if err != nil {
		panic("tradebench: no help text " + name)
	}
	return strings.NewReplacer(oldnew...).Replace(string(b))
}
