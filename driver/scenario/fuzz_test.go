package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse compiles any bytes as a scenario file (a scenario is anyone's: it comes with a bug
// report or a benchmark kit). Beyond not panicking: the YAML bounds hold (an alias bomb is
// refused, not expanded), and a scenario that compiles compiles again from its own source to
// the same transactions and parameters.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/*.yaml")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		aliasBomb,
		"name: t\nflow:\n  - request: {name: x, url: /x}\n",
		"name: t\nparams: {users: 10}\nflow:\n  - set: {uid: \"uid:{{user}}\"}\n  - request:\n      name: login\n      method: POST\n" +
			"      url: /login\n      form: {uid: \"{{uid}}\", passwd: xxx}\n      check: {contains: Welcome, status: 200}\n" +
			"      extract: {hid: {regex: 'holdingID=(\\d+)'}}\n",
		"name: t\nflow:\n  - mix:\n      - {weight: 2, flow: [{request: {name: a, url: \"/a?x={{random 1 10}}\"}}]}\n" +
			"      - {weight: 1, flow: [{request: {name: b, url: /b}}]}\n",
		"name: t\nthink: 1s-2s\nflow:\n  - request: {name: x, url: \"/{{unknown}}\"}\n",
		strings.Repeat("- ", 100) + "x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := Parse("f.yaml", b, Options{RunID: "R"})
		if err != nil {
			return
		}
		again, err := Parse("f.yaml", sc.Content, Options{RunID: "R"})
		if err != nil {
			t.Fatalf("a compiled scenario does not compile again: %v", err)
		}
		if a, b := sc.TransactionNames(), again.TransactionNames(); strings.Join(a, "\x00") != strings.Join(b, "\x00") {
			t.Fatalf("compiled twice, transactions %q then %q", a, b)
		}
	})
}
