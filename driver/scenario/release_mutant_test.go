package scenario

import "testing"

// TestUniqueReleaseGivesValuesBack: what one user releases, the next can draw. A one-value
// range, drawn by user 1 and released, is drawn by user 2 without error; two draws of
// {unique 0..2} by user 1 (both values), released, are both drawable by user 2. Each user's
// draws come straight after the other's Release, so no later draw of user 1 can give the
// values back in its stead.
//
// Mutants killed, in Draws.Release: a slot's held value not released (the `release(i)` call
// dropped: user 2 finds the range exhausted); Release stopping after the first slot (a `break`
// after it: user 2's second draw finds the second value still held).
func TestUniqueReleaseGivesValuesBack(t *testing.T) {
	sc := uniqueScenario(t, 1, Options{})
	set := sc.Steps[0].Sets
	u1 := &env{vars: make([]string, len(sc.Vars)), d: sc.NewDraws(1, 1)}
	u2 := &env{vars: make([]string, len(sc.Vars)), d: sc.NewDraws(1, 2)}
	if v := set[0].Value.String(u1); v != "uid:0" || u1.d.Err() != nil {
		t.Fatalf("user 1 drew %q", v)
	}
	u1.d.Release()
	if v := set[0].Value.String(u2); v != "uid:0" {
		t.Fatalf("user 2 drew %q after user 1 released the only value", v)
	}
	if err := u2.d.Err(); err != nil {
		t.Fatalf("user 2's draw after user 1 released the only value: %v", err)
	}

	two, err := Parse("t.yaml", []byte(`
name: t
flow:
  - set: {from: "{unique 0..2}", to: "{{unique 0 2}}"}
  - request: {url: "/transfer?from={{from}}&to={{to}}"}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	set = two.Steps[0].Sets
	draw := func(user int, e *env) {
		t.Helper()
		a, b := set[0].Value.String(e), set[1].Value.String(e)
		if err := e.d.Err(); err != nil { // an *ExhaustedError: a value was never given back
			t.Fatalf("user %d: %v", user, err)
		}
		if a == b || a+b != "01" && a+b != "10" {
			t.Fatalf("user %d drew %s and %s, want 0 and 1", user, a, b)
		}
	}
	v1 := &env{vars: make([]string, len(two.Vars)), d: two.NewDraws(1, 1)}
	v2 := &env{vars: make([]string, len(two.Vars)), d: two.NewDraws(1, 2)}
	draw(1, v1)
	v1.d.Release()
	draw(2, v2)
}
