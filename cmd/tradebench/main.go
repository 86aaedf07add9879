// Command tradebench is the performance kit's one binary. Each subcommand lives in its own file
// and registers itself; the files only turn flags into configuration and call the packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand. run gets the arguments after the subcommand's name; it returns
// errUsage (wrapped) for a bad command line, so main can exit 2 as flag does.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("tradebench: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks an error in the command line (exit status 2).
var errUsage = errors.New("usage error")

// usageErrorf reports a command-line mistake; the message should name the flag.
func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// newFlagSet makes a FlagSet for a subcommand that returns its errors instead of exiting and
// prints usage with a one-line synopsis.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("tradebench "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tradebench %s %s\n\nflags:\n", name, synopsis)
		printFlags(fs)
	}
	return fs
}

// parseFlags parses args, mapping -h to a clean exit and other errors to errUsage. It also
// rejects stray positional arguments unless allowArgs.
func parseFlags(fs *flag.FlagSet, args []string, allowArgs bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if !allowArgs && fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q (flags go before it? see --help)", fs.Arg(0))
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "tradebench — a performance kit for application platforms\n\nusage: tradebench <command> [flags]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nRun 'tradebench <command> --help' for a command's flags.\n")
}

func main() {
	os.Exit(runMain(os.Args[1:]))
}

func runMain(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(os.Stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "tradebench: unknown command %q\n\n", args[0])
		usage(os.Stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := c.run(ctx, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(os.Stderr, "tradebench %s: %s\n", c.name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return 2
	default:
		var ec exitCoder
		if errors.As(err, &ec) {
			if msg := err.Error(); msg != "" {
				fmt.Fprintf(os.Stderr, "tradebench %s: %s\n", c.name, msg)
			}
			return ec.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "tradebench %s: %v\n", c.name, err)
		return 1
	}
}

// exitCoder lets a command choose its exit status (e.g. thresholds failed = 3).
type exitCoder interface {
	error
	ExitCode() int
}
