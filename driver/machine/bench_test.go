package machine

import (
	"context"
	"os"
	"testing"
)

// A reading of the window (every process's stat line, the system's CPU, the followed
// connections) on this machine's real /proc: taken at the window's start and end.
func BenchmarkRead(b *testing.B) {
	w := &Watch{cfg: Config{Root: "/proc", Self: os.Getpid()}}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := w.read(context.Background()); !ok {
			b.Fatal("could not read /proc")
		}
	}
}
