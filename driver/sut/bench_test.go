package sut

import (
	"context"
	"net"
	"os"
	"testing"
)

// The readers a run calls every second (Proc.Read for each server process, Followed.Read for
// the embedded server's database) and every few (Follow), on this machine's real /proc: their
// cost is the driver's, taken from the load it offers.

func BenchmarkProcRead(b *testing.B) {
	p := Self("me")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// benchConn gives this process a loopback connection to itself, for Follow to find.
func benchConn(b *testing.B) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.Cleanup(func() { c.Close() })
		}
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
}

func BenchmarkFollow(b *testing.B) {
	benchConn(b)
	b.ReportAllocs()
	for b.Loop() {
		Follow("", os.Getpid(), []int{os.Getpid()})
	}
}

func BenchmarkFollowedRead(b *testing.B) {
	benchConn(b)
	f := FollowSelf()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
