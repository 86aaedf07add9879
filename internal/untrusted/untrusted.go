// Package untrusted holds the bounds on reading what other people send the kit: files (results,
// scenarios, price lists, configuration) and documents a target serves. Every reader takes a
// size bound applied while reading, and every JSON or YAML document a depth bound (and, for
// YAML, a bound on alias expansion), checked before the document is decoded, because unbounded
// decoders are the attack: a 711-byte scenario (a "billion laughs" of YAML aliases) takes a
// drive past 1.8 GiB, and a 340 KB config.json nested 3,000 deep a report to 2.2 GiB (both
// measured without the bounds). docs/security.md lists each bound.
package untrusted

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"
)

// MaxDepth bounds the nesting of a JSON or YAML document the kit reads: its own documents nest
// fewer than 12 deep (a scenario's steps in choices in repeats stay far below).
const MaxDepth = 64

// MaxYAMLNodes bounds a YAML document's nodes counted with every alias expanded: the largest
// built-in scenario has about 1,000; a billion-laughs file has 10^9.
const MaxYAMLNodes = 100_000

// Size bounds of the files the kit reads.
const (
	MaxScenarioBytes = 4 << 20   // a scenario file
	MaxResultsBytes  = 256 << 20 // a results file (an hour's series is a few MB)
	MaxSmallFile     = 1 << 20   // a price list, a secret, a configuration page's JSON
)

// ErrTooLarge is a file or document past its size bound.
var ErrTooLarge = errors.New("too large")

// ReadFile reads path if it holds at most max bytes, reading no more than max+1 whatever the
// file claims (a pipe or /proc file has no size); what names the file's role in the error.
func ReadFile(path string, max int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= max {
		// read into one buffer of the file's size: io.ReadAll's doubling left garbage of
		// about the file's size again (256 MiB at the results cap) for the collector
		buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
		if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
			return nil, err
		}
		return checkSize(buf.Bytes(), max, what+" "+path)
	}
	return Read(f, max, what+" "+path)
}

// Read reads r to its end if it holds at most max bytes.
func Read(r io.Reader, max int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	return checkSize(b, max, what)
}

// checkSize refuses b, read with a limit of max+1, if it holds more than max bytes.
func checkSize(b []byte, max int64, what string) ([]byte, error) {
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w: more than %s (the bound on what is read; docs/security.md)", what, ErrTooLarge, size(max))
	}
	return b, nil
}

func size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// ErrTooDeep is a document nested deeper than its bound, or a YAML document whose aliases
// expand past MaxYAMLNodes.
var ErrTooDeep = errors.New("nested too deep")

// CheckJSON reports a JSON document nested deeper than maxDepth, in one pass over its bytes
// without decoding it (so a hostile document costs its length, not its length times its depth).
// It does not check the syntax: the decoder does.
func CheckJSON(b []byte, maxDepth int) error {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return fmt.Errorf("JSON %w: more than %d levels at byte %d (the bound on what is read; docs/security.md)", ErrTooDeep, maxDepth, i)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// CheckYAML reports a parsed YAML document (yaml.Unmarshal into a yaml.Node, which does not
// expand aliases) nested deeper than MaxDepth or of more than MaxYAMLNodes nodes once its
// aliases are expanded — before Decode expands them. Each anchor's expanded size is computed
// once, so the check costs the document's length.
func CheckYAML(doc *yaml.Node) error {
	sizes := map[*yaml.Node]int{}
	var walk func(n *yaml.Node, depth int) (int, error)
	walk = func(n *yaml.Node, depth int) (int, error) {
		if depth > MaxDepth {
			return 0, fmt.Errorf("YAML %w: more than %d levels at line %d (docs/security.md)", ErrTooDeep, MaxDepth, n.Line)
		}
		if s, ok := sizes[n]; ok {
			return s, nil
		}
		sizes[n] = MaxYAMLNodes + 1 // an alias of itself (a cycle) is too large
		total := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			s, err := walk(n.Alias, depth+1)
			if err != nil {
				return 0, err
			}
			total += s
		}
		for _, c := range n.Content {
			s, err := walk(c, depth+1)
			if err != nil {
				return 0, err
			}
			if total += s; total > MaxYAMLNodes {
				break
			}
		}
		if total > MaxYAMLNodes {
			return 0, fmt.Errorf("YAML aliases expand past %d nodes at line %d (an alias bomb? docs/security.md)", MaxYAMLNodes, n.Line)
		}
		sizes[n] = total
		return total, nil
	}
	_, err := walk(doc, 0)
	return err
}

// UnmarshalYAML parses data into a node tree and checks it (CheckYAML): what a decoder of
// untrusted YAML calls instead of yaml.Unmarshal.
func UnmarshalYAML(data []byte, doc *yaml.Node) error {
	if err := yaml.Unmarshal(data, doc); err != nil {
		return err
	}
	return CheckYAML(doc)
}
