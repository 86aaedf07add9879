package htmlreport

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// field is one setting or disclosed fact as a dotted key and its value as text.
type field struct {
	Key, Value string
}

// flatten lays out any JSON-shaped value (settings, the disclosure, a server's configuration,
// workload-specific extras) as sorted dotted keys — "params.users" = "300" — so a page can list
// it, and a comparison can line the same key up across runs, without knowing its schema (which
// belongs to whoever wrote it). Lists of plain values become one comma-separated value; lists of
// objects get an index ("processes[0].name").
func flatten(prefix string, v any) []field {
	b, err := json.Marshal(v)
	if err != nil { // only a json.RawMessage that is not JSON: say so rather than hide it
		return []field{{Key: prefix + "(unreadable)", Value: err.Error()}}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // keep numbers as written: no float rounding of large counts
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil
	}
	fl := flattener{left: maxFlatBytes}
	fl.walk(prefix, doc)
	out := fl.out
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	if fl.cut > 0 {
		out = append(out, field{Key: prefix + "(truncated)",
			Value: strconv.Itoa(fl.cut) + " more fields not shown: the report lists at most " + strconv.Itoa(maxFlatBytes>>10) + " KiB " +
				"of one document"})
	}
	return out
}

// maxFlatBytes bounds the keys and values one flattened document yields: each key repeats its
// parents, so a deep document multiplies (a 340 KB one made a 455 MB report before its depth
// was bounded too); the kit's own are a few KB.
const maxFlatBytes = 256 << 10

// maxFlatKey bounds one dotted key (a document's depth times its keys' length).
const maxFlatKey = 4 << 10

// flattener collects a document's fields within maxFlatBytes, counting the ones cut.
type flattener struct {
	out  []field
	left int
	cut  int
}

func (f *flattener) add(k, v string) {
	if f.left -= len(k) + len(v); f.left < 0 {
		f.cut++
		return
	}
	f.out = append(f.out, field{k, v})
}

func (f *flattener) walk(key string, v any) {
	if f.left < 0 || len(key) > maxFlatKey { // past a bound: count, do not build more keys
		f.cut++
		return
	}
	join := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	switch v := v.(type) {
	case nil:
		if key != "" {
			f.add(key, "")
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the same fields kept on every report when the bound cuts
		for _, k := range keys {
			f.walk(join(k), v[k])
		}
	case []any:
		plain := true
		parts := make([]string, len(v))
		for i, x := range v {
			s, ok := scalar(x)
			plain = plain && ok
			parts[i] = s
		}
		if plain {
			f.add(key, strings.Join(parts, ", "))
			return
		}
		for i, x := range v {
			f.walk(key+"["+strconv.Itoa(i)+"]", x)
		}
	default:
		s, _ := scalar(v)
		f.add(key, s)
	}
}

func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// lookup is the value of key among fields, or "".
func lookup(fields []field, key string) string {
	for _, f := range fields {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}
