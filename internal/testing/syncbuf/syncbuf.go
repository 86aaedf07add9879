// Package syncbuf is a bytes.Buffer that a test reads while other goroutines or a child
// process (its Stdout, a server's log) write it: the one such buffer of the tests.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is safe for concurrent Write and String; the zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
