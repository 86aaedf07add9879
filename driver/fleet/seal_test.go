package fleet

import (
	"encoding/json"
	"testing"
)

// BenchmarkTickSeal is the agent's cost of sealing one second's tick (1,000 transactions'
// histogram) against BenchmarkTickEncode, the JSON alone: the difference is the HMAC.
func BenchmarkTickSeal(b *testing.B) {
	t := Tick{Header: header(), Run: "r", Agent: "a", Second: 1, Phase: "steady", Pass: 1000, Hits: 1000, Users: 50, Hist: tickOf(1000)}
	subj := runSubject("r", "tick")
	for b.Loop() {
		testSeal.seal(subj, t)
	}
}

func BenchmarkTickEncode(b *testing.B) {
	t := Tick{Header: header(), Run: "r", Agent: "a", Second: 1, Phase: "steady", Pass: 1000, Hits: 1000, Users: 50, Hist: tickOf(1000)}
	for b.Loop() {
		encode(t)
	}
}

// BenchmarkTickOpen is the controller's cost of checking and decoding one tick, against
// BenchmarkTickDecode, the JSON alone.
func BenchmarkTickOpen(b *testing.B) {
	t := Tick{Header: header(), Run: "r", Agent: "a", Second: 1, Phase: "steady", Pass: 1000, Hits: 1000, Users: 50, Hist: tickOf(1000)}
	subj := runSubject("r", "tick")
	data := testSeal.seal(subj, t)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var got Tick
		if err := testSeal.open(subj, data, &got); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTickDecode(b *testing.B) {
	t := Tick{Header: header(), Run: "r", Agent: "a", Second: 1, Phase: "steady", Pass: 1000, Hits: 1000, Users: 50, Hist: tickOf(1000)}
	data := encode(t)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var got Tick
		if err := json.Unmarshal(data, &got); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSealRefusesTampering: a sealed message opens on its own subject only, and not once a
// byte of it changed.
func TestSealRefusesTampering(t *testing.T) {
	subj := agentSubject("a", "start")
	data := testSeal.seal(subj, Start{Header: header(), Run: "r"})
	var st Start
	if err := testSeal.open(subj, data, &st); err != nil || st.Run != "r" {
		t.Fatalf("open: %v %+v", err, st)
	}
	if testSeal.open(agentSubject("b", "start"), data, &st) == nil {
		t.Fatal("a message for agent a opened on agent b's subject")
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)-3] ^= 1
	if testSeal.open(subj, bad, &st) == nil {
		t.Fatal("a changed message opened")
	}
	if (sealer{key: []byte("another-secret-0123456789")}).open(subj, data, &st) == nil {
		t.Fatal("a message opened with another secret")
	}
}
