package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/tradebench/tradebench/driver/disclose"
	"github.com/tradebench/tradebench/internal/cliflag"
)

func init() {
	register(&command{name: "version", summary: "print the version", run: func(ctx context.Context, args []string) error {
		if err := cliflag.Parse(cliflag.NewFlagSet("tradebench version", ""), args, false); err != nil {
			return err
		}
		sw := disclose.Software() // the same version and commit the results' disclosure records
		commit := ""
		if sw.Commit != "" {
			commit = "commit " + sw.Commit + ", "
		}
		fmt.Printf("tradebench %s (%s%s, %s/%s)\n", sw.Tradebench, commit, sw.Go, runtime.GOOS, runtime.GOARCH)
		return nil
	}})
}
