package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/tradebench/tradebench/report"
)

func init() {
	register(&command{name: "version", summary: "print the version", run: func(ctx context.Context, args []string) error {
		if err := parseFlags(newFlagSet("version", ""), args, false); err != nil {
			return err
		}
		fmt.Printf("tradebench %s (%s, %s/%s)\n", report.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	}})
}
