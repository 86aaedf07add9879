package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A results file is anyone's: one of many transactions is decoded keeping only the busiest
// MaxReadTransactions (in the file's order), the rest summed into one row as they stream by,
// with a note — memory bounded while decoding, not after. A peak search's steps are cut to
// MaxReadSteps, the peak step kept. A page cut further still counts every transaction. Made
// files; the key matched without regard to case as encoding/json matches it, so
// "TRANSACTIONS" is not a way past the cap.
// Mutants (scripts/mutants.d): read-keeps-every-transaction (the heap never full),
// read-steps-uncapped (the steps' cap gone).
func TestReadKeepsTheBusiestTransactions(t *testing.T) {
	const n = MaxReadTransactions + 1500
	var txs []string
	for i := range n {
		// counts rise then fall, so the busiest are not simply the last
		c := i
		if i%2 == 1 {
			c = n - i
		}
		txs = append(txs, fmt.Sprintf(`{"name":"tx-%05d","count":%d,"pass":%d,"errors":0,"tps":1}`, i, c, c))
	}
	var steps []string
	for i := 1; i <= MaxReadSteps+500; i++ {
		steps = append(steps, fmt.Sprintf(`{"step":%d,"users":%d,"tps":1}`, i, i))
	}
	for _, key := range []string{"transactions", "TRANSACTIONS"} {
		b := fmt.Sprintf(`{"schema_version":2,"tool":"tradebench","%s":[%s],"peak":{"peak_step":%d,"steps":[%s]},"notes":["kept"]}`,
			key, strings.Join(txs, ","), MaxReadSteps+400, strings.Join(steps, ","))
		r, err := Decode([]byte(b))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Transactions) != MaxReadTransactions+1 {
			t.Fatalf("%s: %d transactions kept, want %d and a row of the rest", key, len(r.Transactions), MaxReadTransactions+1)
		}
		// the busiest are those of count >= the MaxReadTransactions-th largest
		var all []int64
		var sum int64
		for i := range n {
			c := int64(i)
			if i%2 == 1 {
				c = int64(n - i)
			}
			all = append(all, c)
			sum += c
		}
		var keptSum int64
		last := -1
		for _, tx := range r.Transactions[:MaxReadTransactions] {
			var i int
			fmt.Sscanf(tx.Name, "tx-%d", &i)
			if i <= last {
				t.Fatalf("%s: kept transactions out of the file's order: %s after tx-%05d", key, tx.Name, last)
			}
			last = i
			keptSum += tx.Count
			if tx.Count != all[i] {
				t.Fatalf("%s: %s has count %d, want %d", key, tx.Name, tx.Count, all[i])
			}
		}
		busiest := 0
		least := r.Transactions[0].Count
		for _, tx := range r.Transactions[:MaxReadTransactions] {
			least = min(least, tx.Count)
		}
		for _, c := range all {
			if c > least {
				busiest++
			}
		}
		if busiest > MaxReadTransactions {
			t.Errorf("%s: a transaction busier than one kept was summed (%d busier than the least kept, %d kept)", key, busiest, MaxReadTransactions)
		}
		other := r.Transactions[MaxReadTransactions]
		if other.Name != OthersName(n-MaxReadTransactions) || other.Count != sum-keptSum || other.Pass != sum-keptSum {
			t.Errorf("%s: the row of the rest: %+v, want %s of count %d", key, other, OthersName(n-MaxReadTransactions), sum-keptSum)
		}
		if len(r.Peak.Steps) != MaxReadSteps || r.Peak.Steps[MaxReadSteps-1].Step != MaxReadSteps+400 {
			t.Errorf("%s: %d steps kept, the last %d; want %d, the peak step last", key, len(r.Peak.Steps), r.Peak.Steps[len(r.Peak.Steps)-1].Step, MaxReadSteps)
		}
		notes := strings.Join(r.Notes, "\n")
		for _, want := range []string{"kept", fmt.Sprintf("read: the %d busiest of %d transactions kept", MaxReadTransactions, n), fmt.Sprintf("read: the first %d of the peak search's %d steps kept", MaxReadSteps, MaxReadSteps+500)} {
			if !strings.Contains(notes, want) {
				t.Errorf("%s: notes %q lack %q", key, notes, want)
			}
		}
		if d := r.ForDrawing(); len(d.Transactions) != MaxDrawnTransactions || d.Transactions[MaxDrawnTransactions-1].Name != OthersName(n-MaxDrawnTransactions+1) {
			t.Errorf("%s: the page's cut: %d rows, the last %q; want %d, the last %q", key, len(d.Transactions), d.Transactions[len(d.Transactions)-1].Name, MaxDrawnTransactions, OthersName(n-MaxDrawnTransactions+1))
		}
	}
}

// A file within the caps reads exactly as json.Unmarshal reads it: every member, the
// transactions in order, nothing noted; a second "transactions" member replaces the first as
// it does there; null and [] stay none and empty.
func TestReadWithinTheCapsAsUnmarshal(t *testing.T) {
	b := `{"schema_version":2,"tool":"tradebench","label":"a","transactions":[{"name":"x","count":1}],"Transactions":[{"name":"b","count":2},{"name":"a","count":3,"histogram":"HIST"}],"total":{"name":"total","count":5},"notes":["n"]}`
	r, err := Decode([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	var want Results
	if err := json.Unmarshal([]byte(b), &want); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r)
	exp, _ := json.Marshal(&want)
	if string(got) != string(exp) {
		t.Errorf("read:\n%s\nwant:\n%s", got, exp)
	}
	for body, empty := range map[string]bool{`null`: false, `[]`: true} {
		r, err := Decode([]byte(`{"schema_version":2,"transactions":` + body + `}`))
		if err != nil || (r.Transactions != nil) != empty || len(r.Transactions) != 0 {
			t.Errorf("transactions %s: %#v, %v", body, r.Transactions, err)
		}
	}
	if _, err := Decode([]byte(`{"schema_version":2,"transactions":{"name":"x"}}`)); err == nil {
		t.Error("transactions as an object: no error")
	}
}
