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
	var out []field
	walk(prefix, doc, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func walk(key string, v any, out *[]field) {
	join := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	switch v := v.(type) {
	case nil:
		if key != "" {
			*out = append(*out, field{key, ""})
		}
	case map[string]any:
		for k, x := range v {
			walk(join(k), x, out)
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
			*out = append(*out, field{key, strings.Join(parts, ", ")})
			return
		}
		for i, x := range v {
			walk(key+"["+strconv.Itoa(i)+"]", x, out)
		}
	default:
		s, _ := scalar(v)
		*out = append(*out, field{key, s})
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
