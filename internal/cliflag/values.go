package cliflag

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/tradebench/tradebench/internal/bytesize"
)

// aliasValue is a hidden alias: the Value of the flag it stands for, so setting either sets the
// same variable. PrintFlags leaves it out of --help and Given reports it by its new name.
type aliasValue struct {
	flag.Value
	name string // the flag it is an alias of
}

// IsBoolFlag lets a boolean flag's alias, like the flag, go without a value.
func (a aliasValue) IsBoolFlag() bool {
	b, ok := a.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Alias accepts each old name in place of the flag name, without listing it in --help (a
// renamed flag goes on working in every script that spells it the old way). The flag must
// already be defined: an alias of nothing is a programming mistake, and panics.
func Alias(fs *flag.FlagSet, name string, old ...string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("cliflag: alias of undefined flag --" + name)
	}
	for _, o := range old {
		fs.Var(aliasValue{f.Value, name}, o, "old name of --"+name)
	}
}

// Given returns the flags set on the command line, each by its current name (an alias counts
// as the flag it stands for): what the user chose, as against a default.
func Given(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		if a, ok := f.Value.(aliasValue); ok {
			given[a.name] = true
			return
		}
		given[f.Name] = true
	})
	return given
}

// IsTerminal reports whether f is an interactive terminal (where progress is redrawn in place);
// the one test every command uses.
func IsTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Progress is --progress: live progress on stderr, auto (redrawn in place on a terminal, plain
// lines otherwise), on or off.
type Progress struct{ mode string }

func (p *Progress) String() string {
	if p == nil {
		return ""
	}
	return p.mode
}

func (p *Progress) Set(s string) error {
	switch s {
	case "auto", "on", "off":
		p.mode = s
		return nil
	}
	return fmt.Errorf("want auto, on or off, got %q", s)
}

// Writer returns where progress goes (nil: nowhere) and whether it may redraw in place.
func (p *Progress) Writer() (w io.Writer, tty bool) {
	switch p.mode {
	case "off":
		return nil, false
	case "on":
		return os.Stderr, false
	}
	return os.Stderr, IsTerminal(os.Stderr)
}

// quietValue is the old --quiet, kept as a hidden alias of --progress: --quiet is --progress off.
type quietValue struct{ p *Progress }

func (q quietValue) String() string   { return "false" }
func (q quietValue) IsBoolFlag() bool { return true }
func (q quietValue) Set(s string) error {
	quiet, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	q.p.mode = "auto"
	if quiet {
		q.p.mode = "off"
	}
	return nil
}

// AddProgress defines --progress (and the old --quiet as its hidden alias).
func AddProgress(fs *flag.FlagSet) *Progress {
	p := &Progress{mode: "auto"}
	fs.Var(p, "progress", "`mode` of the live progress on stderr: auto (in place on a terminal, a line every few seconds otherwise), on, off")
	fs.Var(aliasValue{quietValue{p}, "progress"}, "quiet", "old name of --progress off")
	return p
}

// OptBool is a boolean flag that knows whether it was given: a default that depends on other
// flags (on in one mode, off in another) is decided only when the user did not.
type OptBool struct{ V, IsSet bool }

func (b *OptBool) String() string { return strconv.FormatBool(b.V) }
func (b *OptBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	b.V, b.IsSet = v, true
	return err
}
func (b *OptBool) IsBoolFlag() bool { return true }

// KV collects a repeatable name=value flag (--set users=5000 --set quotes=1000); the last value
// of a name wins.
type KV map[string]string

func (m KV) String() string { return "" }
func (m KV) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	m[strings.TrimSpace(k)] = v
	return nil
}

// Size is a byte size flag, parsed strictly (50KB, 500KB, 1MB, 2GB; see bytesize.Parse).
type Size struct{ N int64 }

func (s *Size) String() string {
	if s == nil {
		return ""
	}
	return bytesize.Format(s.N)
}

func (s *Size) Set(v string) error {
	n, err := bytesize.Parse(v)
	if err != nil {
		return err
	}
	s.N = n
	return nil
}

// AddSize defines a byte size flag with a default of def bytes.
func AddSize(fs *flag.FlagSet, name string, def int64, usage string) *Size {
	s := &Size{N: def}
	fs.Var(s, name, usage)
	return s
}
