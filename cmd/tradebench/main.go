// Command tradebench is the performance kit's one binary. Each subcommand lives in its own file
// and registers itself; the files only turn flags into configuration and call the packages.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/gctune"
	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/internal/suggest"
)

// command is one subcommand. run gets the arguments after the subcommand's name; it returns
// cliflag.ErrUsage (wrapped) for a bad command line, and exitCode maps every error to the exit status.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
	// hidden: not listed by --help nor suggested, as a part of a deployment script (the test
	// bed's network fault) rather than of the product
	hidden bool
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("tradebench: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "tradebench — a performance kit for application platforms\n\nusage: tradebench <command> [flags]\n\ncommands:\n")
	names := visibleCommands()
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nRun 'tradebench <command> --help' for a command's flags.\n")
}

func main() {
	gctune.Apply()
	os.Exit(runMain(os.Args[1:]))
}

func runMain(args []string) int {
	if len(args) == 0 {
		// a command is required: the usage goes where errors go, and the status says so
		usage(os.Stderr)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(os.Stdout)
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "tradebench: unknown command %q;%s see 'tradebench --help'\n", args[0], nearestCommand(args[0]))
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := c.run(ctx, args[1:])
	code := exitCode(err)
	if code != exitOK {
		if msg := strings.TrimPrefix(err.Error(), cliflag.ErrUsage.Error()+": "); msg != "" {
			// errors quote files and targets: no escape sequence of theirs reaches the terminal
			fmt.Fprintf(os.Stderr, "tradebench %s: %s\n", c.name, logsafe.TerminalLines(msg))
		}
	}
	return code
}

// visibleCommands is the names of the commands --help lists, sorted.
func visibleCommands() []string {
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// nearestCommand is " did you mean X?" for the command nearest to name, or "".
func nearestCommand(name string) string {
	if best := suggest.Nearest(name, visibleCommands()); best != "" {
		return " did you mean " + best + "?"
	}
	return ""
}
