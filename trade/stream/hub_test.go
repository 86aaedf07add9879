package stream

import (
	"testing"
)

// TestSlowConsumerDropped: a subscriber that reads nothing is dropped once its buffer is full;
// the publisher never waits for it, and a subscriber that keeps up gets every event.
func TestSlowConsumerDropped(t *testing.T) {
	h := NewHub[int](4)
	slow := h.Subscribe([]string{"a"})
	fast := h.Subscribe(nil)
	got := 0
	for i := range 100 {
		h.Publish("a", i) // would block for ever if the hub waited on slow
		select {
		case <-fast.C:
			got++
		default:
			t.Fatalf("event %d not delivered to a subscriber that keeps up", i)
		}
	}
	if got != 100 {
		t.Fatalf("fast subscriber got %d events, want 100", got)
	}
	select {
	case <-slow.Gone():
	default:
		t.Fatal("slow subscriber was not dropped")
	}
	if st := h.Stats(); st.Dropped != 1 || st.Subscribers != 1 || st.Published != 100 {
		t.Fatalf("stats %+v", st)
	}
	h.Unsubscribe(slow) // no-op after a drop
	h.Unsubscribe(fast)
	if h.Len() != 0 {
		t.Fatalf("len %d after unsubscribing all", h.Len())
	}
}

// TestKeysFilter: a subscriber hears only its keys.
func TestKeysFilter(t *testing.T) {
	h := NewHub[string](8)
	s := h.Subscribe([]string{"s:1", "s:2"})
	h.Publish("s:3", "x")
	h.Publish("s:2", "y")
	if v := <-s.C; v != "y" {
		t.Fatalf("got %q, want y", v)
	}
	select {
	case v := <-s.C:
		t.Fatalf("unexpected %q", v)
	default:
	}
}
