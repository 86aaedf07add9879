package cliflag

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Subcommand is one verb of a command group such as 'tradebench wstest serve'.
type Subcommand struct {
	Name string
	Run  func(ctx context.Context, args []string) error
}

// RunSubcommand runs the subcommand named by args[0], printing usage (the group's help text)
// for help (on stdout) or a missing subcommand (on stderr, with a usage error, as a program
// called without its command).
func RunSubcommand(ctx context.Context, args []string, usage string, subs ...Subcommand) error {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.Name
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return Errorf("missing subcommand (%s)", want)
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Print(usage)
		return nil
	}
	for _, s := range subs {
		if s.Name == args[0] {
			return s.Run(ctx, args[1:])
		}
	}
	return Errorf("unknown subcommand %q (want %s)", args[0], want)
}
