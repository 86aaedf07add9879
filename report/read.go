package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tradebench/tradebench/internal/untrusted"
)

// ReadFile reads a results file of schema version 2, or of version 1 converted to version 2
// (see fromV1). Anything else is refused with an error naming the file and the problem: not
// JSON, truncated, not a results file, or a schema version this build does not read.
func ReadFile(path string) (*Results, error) {
	b, err := untrusted.ReadFile(path, untrusted.MaxResultsBytes, "results file")
	if err != nil {
		return nil, err
	}
	r, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Decode is ReadFile on bytes already read.
func Decode(b []byte) (*Results, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty file, not a tradebench results file")
	}
	// a results file is anyone's: its nesting is bounded before anything decodes it
	if err := untrusted.CheckJSON(b, untrusted.MaxDepth); err != nil {
		return nil, err
	}
	var head struct {
		SchemaVersion *int   `json:"schema_version"`
		Tool          string `json:"tool"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, notJSON(b, err)
	}
	if head.SchemaVersion == nil {
		return nil, errors.New("no schema_version: not a tradebench results file")
	}
	switch v := *head.SchemaVersion; v {
	case SchemaVersion:
		var r Results
		kept, err := decodeKept(b, &r)
		if err != nil {
			return nil, fmt.Errorf("not a valid schema version %d results file: %w", v, err)
		}
		kept.apply(&r)
		return &r, nil
	case 1:
		return fromV1(b)
	default:
		return nil, fmt.Errorf("unknown schema version %d: this tradebench reads versions 1 and 2", v)
	}
}

// What a read keeps of a results file is bounded while it decodes, not after: a file is
// anyone's, and one of 150,000 transactions (80 MiB, under the size cap) took `report` to 424
// MiB decoding every transaction (with its histogram) before the page drew 100 of them; one
// at the size cap went past a gigabyte. These are generous beside what a page draws
// (MaxDrawnTransactions): a run of a real scenario has tens of transactions and steps.
const (
	// MaxReadTransactions is the most transactions kept when a results file is read: the
	// busiest by count, in the file's order; the others are summed into one row as they are
	// decoded (OthersName), with a note.
	MaxReadTransactions = 1_000
	// MaxReadSteps is the most steps of a peak search kept when a results file is read (the
	// first; the peak step among them), with a note.
	MaxReadSteps = 1_000
)

// keptTransactions are the busiest MaxReadTransactions transactions of the ones decoded so
// far (a min-heap by count, then by position), and the sum of the rest.
type keptTransactions struct {
	kept  []keptTx
	other Transaction
	n     int  // transactions decoded
	array bool // the file had an array of them (maybe empty), not none
}

type keptTx struct {
	tx  Transaction
	pos int
}

// less orders the heap: the least busy at the top, the later of two as busy.
func (k *keptTransactions) less(i, j int) bool {
	a, b := k.kept[i], k.kept[j]
	return a.tx.Count < b.tx.Count || a.tx.Count == b.tx.Count && a.pos > b.pos
}

func (k *keptTransactions) add(t Transaction) {
	pos := k.n
	k.n++
	if len(k.kept) < MaxReadTransactions {
		k.kept = append(k.kept, keptTx{t, pos})
		for i := len(k.kept) - 1; i > 0; { // up
			p := (i - 1) / 2
			if !k.less(i, p) {
				break
			}
			k.kept[i], k.kept[p] = k.kept[p], k.kept[i]
			i = p
		}
		return
	}
	if t.Count <= k.kept[0].tx.Count {
		k.sum(t)
		return
	}
	k.sum(k.kept[0].tx)
	k.kept[0] = keptTx{t, pos}
	for i := 0; ; { // down
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(k.kept) && k.less(l, m) {
			m = l
		}
		if r < len(k.kept) && k.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		k.kept[i], k.kept[m] = k.kept[m], k.kept[i]
		i = m
	}
}

// sum adds t to the row of the transactions not kept, as ForDrawing sums those it does not draw.
func (k *keptTransactions) sum(t Transaction) {
	k.other.Count += t.Count
	k.other.Pass += t.Pass
	k.other.Errors += t.Errors
	k.other.Stop += t.Stop
	k.other.TPS += t.TPS
}

// apply puts the kept transactions into r in the file's order, the rest summed in one row
// last, and caps the peak search's steps; each cut said in r's notes.
func (k *keptTransactions) apply(r *Results) {
	if k.array {
		slices.SortFunc(k.kept, func(a, b keptTx) int { return a.pos - b.pos })
		r.Transactions = make([]Transaction, 0, len(k.kept)+1)
		for _, t := range k.kept {
			r.Transactions = append(r.Transactions, t.tx)
		}
	}
	if k.n > len(k.kept) {
		k.other.Name = OthersName(k.n - len(k.kept))
		r.Transactions = append(r.Transactions, k.other)
		r.readOthers = k.n - len(k.kept)
		r.Notes = append(r.Notes,
			fmt.Sprintf("read: the %d busiest of %d transactions kept, the other %d summed in one row — the results file holds everything",
				len(k.kept), k.n, k.n-len(k.kept)))
	}
	if p := r.Peak; p != nil && len(p.Steps) > MaxReadSteps {
		n := len(p.Steps)
		steps := slices.Clone(p.Steps[:MaxReadSteps])
		if i := slices.IndexFunc(p.Steps, func(s PeakStep) bool { return s.Step == p.PeakStep }); i >= MaxReadSteps {
			steps[MaxReadSteps-1] = p.Steps[i]
		}
		p.Steps = steps
		r.Notes = append(r.Notes, fmt.Sprintf("read: the first %d of the peak search's %d steps kept — the results file holds everything",
			MaxReadSteps, n))
	}
}

// decodeKept decodes the JSON object b into v (a *Results, or a struct embedding one), the
// "transactions" array streamed one transaction at a time into the kept ones (returned; v's
// own transactions are left empty) rather than decoded whole. Every other member is decoded as
// json.Unmarshal would, a member's name matched without regard to case as it matches them.
func decodeKept(b []byte, v any) (*keptTransactions, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // '{': Decode checked it is an object
		return nil, err
	}
	var rest bytes.Buffer
	rest.WriteByte('{')
	k := &keptTransactions{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		if !strings.EqualFold(name, "transactions") {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			if rest.Len() > 1 {
				rest.WriteByte(',')
			}
			key, _ := json.Marshal(name)
			rest.Write(key)
			rest.WriteByte(':')
			rest.Write(raw)
			continue
		}
		// a member named again replaces the first, as json.Unmarshal does
		k = &keptTransactions{}
		if tok, err := dec.Token(); err != nil {
			return nil, err
		} else if tok == nil {
			continue // null: none
		} else if d, ok := tok.(json.Delim); !ok || d != '[' {
			return nil, fmt.Errorf("transactions: a JSON %v, want an array", tok)
		}
		k.array = true
		for dec.More() {
			var t Transaction
			if err := dec.Decode(&t); err != nil {
				return nil, fmt.Errorf("transactions: %w", err)
			}
			k.add(t)
		}
		if _, err := dec.Token(); err != nil { // ']'
			return nil, err
		}
	}
	rest.WriteByte('}')
	if err := json.Unmarshal(rest.Bytes(), v); err != nil {
		return nil, err
	}
	return k, nil
}

// notJSON tells a file cut short (a run killed while an older build wrote it, a partial copy)
// from one that is not JSON at all.
func notJSON(b []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Errorf("not a tradebench results file: a JSON %s, where a results file is one JSON object", te.Value)
	}
	if errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(b, " \t\r\n"))) {
		return fmt.Errorf("truncated: the JSON ends after %d bytes", len(b))
	}
	if errors.As(err, &se) {
		return fmt.Errorf("not JSON (at byte %d: %v)", se.Offset, err)
	}
	return fmt.Errorf("not a tradebench results file: %w", err)
}

// v1Settings maps version 1's settings keys to version 2's Settings fields (the same name
// unless listed); keys not here were the workload's own and go to Settings.Workload.
var v1Settings = map[string]string{
	"model": "model", "mode": "mode", "users": "users", "iterations": "iterations", "rate": "rate",
	"max_in_flight": "max_in_flight", "ramp_up": "ramp_up", "steady": "steady", "ramp_down": "ramp_down",
	"think": "think", "keep_connections": "keep_connections", "timeout": "timeout", "run_id": "run_id",
	"seed": "seed", "scenario_source": "scenario_source", "params": "params",
	// the cache sweep and XML Mark wrote these names for the same ideas
	"think_time": "think", "warmup": "ramp_up",
}

// fromV1 converts a version 1 file: the load model's settings become typed Settings (peak_*
// keys become Settings.Peak), the workload's other settings are kept as they were under
// settings.workload; extra.server (the server's configuration) becomes
// disclosure.configuration, and the rest of extra becomes detail, whose keys the workloads'
// version 2 sections kept.
func fromV1(b []byte) (*Results, error) {
	var v1 struct {
		Results
		Settings map[string]json.RawMessage `json:"settings"`
		Extra    map[string]json.RawMessage `json:"extra"`
	}
	kept, err := decodeKept(b, &v1)
	if err != nil {
		return nil, fmt.Errorf("not a valid schema version 1 results file: %w", err)
	}
	r := v1.Results
	kept.apply(&r)
	r.SchemaVersion = SchemaVersion
	typed, peak, rest := map[string]json.RawMessage{}, map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, v := range v1.Settings {
		switch name, ok := v1Settings[k]; {
		case ok:
			if _, dup := typed[name]; !dup || name == k {
				typed[name] = v
			}
		case strings.HasPrefix(k, "peak_"):
			peak[strings.TrimPrefix(k, "peak_")] = v
		default:
			rest[k] = v
		}
	}
	if len(peak) > 0 {
		typed["peak"], _ = json.Marshal(peak) // a map of raw JSON always encodes
	}
	tb, _ := json.Marshal(typed)
	if err := json.Unmarshal(tb, &r.Settings); err != nil {
		return nil, fmt.Errorf("schema version 1 settings: %w", err)
	}
	if len(rest) > 0 {
		r.Settings.Workload, _ = json.Marshal(rest)
	}
	if srv, ok := v1.Extra["server"]; ok {
		if r.Disclosure == nil {
			r.Disclosure = &Disclosure{}
		}
		r.Disclosure.Configuration = srv
		delete(v1.Extra, "server")
	}
	if len(v1.Extra) > 0 {
		r.Detail, _ = json.Marshal(v1.Extra)
	}
	return &r, nil
}
