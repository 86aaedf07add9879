package cacheperf

import "testing"

// ReadRSS is read at every point of a sweep and by the server's memory report.
func BenchmarkReadRSS(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if rss, _ := ReadRSS(); rss == 0 {
			b.Fatal("no VmRSS")
		}
	}
}
