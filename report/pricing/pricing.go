// Package pricing reads a price list of the system under test (a small YAML file) and turns it
// and a run's throughput into the results' price/performance: total cost per transaction per
// second, the papers' $/TPS.
//
// Money is exact. Costs are read as decimal text into integer cents (never through a float), the
// total is their exact sum, and the cost per TPS is the exact quotient of the total and the TPS
// as the results file writes it, rounded half away from zero to the cent.
package pricing

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tradebench/tradebench/internal/untrusted"
	"github.com/tradebench/tradebench/report"
)

// Pricing is a price list: what each component of the system under test costs.
type Pricing struct {
	Currency string
	Items    []Item
}

// Item is one priced component.
type Item struct {
	Name  string
	Cents *big.Int
	Line  int // where it is in the file
}

// Error is a mistake in a pricing file; Line is 0 when it concerns the whole file.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Load reads a pricing file:
//
//	currency: USD
//	items:
//	  - name: web and database server, 3 years
//	    cost: 12000.00
//
// Every mistake is an *Error naming the line.
func Load(path string) (*Pricing, error) {
	b, err := untrusted.ReadFile(path, untrusted.MaxSmallFile, "price list")
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads a pricing file's content; path only names it in errors.
func Parse(path string, data []byte) (*Pricing, error) {
	fail := func(line int, format string, args ...any) error {
		return &Error{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var doc yaml.Node
	if err := untrusted.UnmarshalYAML(data, &doc); err != nil {
		return nil, fail(0, "not YAML: %v", err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fail(0, "empty: want currency and items (see the sample in docs/pricing-example.yaml)")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "want a mapping with currency and items")
	}
	top, err := fields(root, fail, "", "currency", "items")
	if err != nil {
		return nil, err
	}
	p := &Pricing{}
	if v := top["currency"]; v != nil {
		if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
			return nil, fail(v.Line, "currency must be a name such as USD or EUR")
		}
		p.Currency = strings.TrimSpace(v.Value)
	}
	if p.Currency == "" {
		return nil, fail(root.Line, "no currency (e.g. currency: USD)")
	}
	items := top["items"]
	if items == nil {
		return nil, fail(root.Line, "no items: list what the system under test costs under items:")
	}
	if items.Kind != yaml.SequenceNode {
		return nil, fail(items.Line, "items must be a list of {name, cost}")
	}
	if len(items.Content) == 0 {
		return nil, fail(items.Line, "no items: list what the system under test costs under items:")
	}
	for _, it := range items.Content {
		if it.Kind != yaml.MappingNode {
			return nil, fail(it.Line, "an item must be {name, cost}")
		}
		kv, err := fields(it, fail, " in an item", "name", "cost")
		if err != nil {
			return nil, err
		}
		item := Item{Line: it.Line}
		if v := kv["name"]; v != nil {
			if v.Kind != yaml.ScalarNode {
				return nil, fail(v.Line, "name must be text")
			}
			item.Name = strings.TrimSpace(v.Value)
		}
		costNode := kv["cost"]
		if item.Name == "" {
			return nil, fail(it.Line, "an item has no name")
		}
		if costNode == nil {
			return nil, fail(it.Line, "item %q has no cost", item.Name)
		}
		if costNode.Kind != yaml.ScalarNode {
			return nil, fail(costNode.Line, "cost of %q must be a number", item.Name)
		}
		c, err := ParseCents(costNode.Value)
		if err != nil {
			return nil, fail(costNode.Line, "cost of %q: %v", item.Name, err)
		}
		item.Cents = c
		p.Items = append(p.Items, item)
	}
	return p, nil
}

// fields returns a YAML mapping's values by key, refusing a key not in want (where says where,
// for the message).
func fields(m *yaml.Node, fail func(int, string, ...any) error, where string, want ...string) (map[string]*yaml.Node, error) {
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !slices.Contains(want, k.Value) {
			return nil, fail(k.Line, "unknown key %q%s (want %s)", k.Value, where, strings.Join(want, " and "))
		}
		out[k.Value] = m.Content[i+1]
	}
	return out, nil
}

var decimal = regexp.MustCompile(`^([+-]?)([0-9]+)(?:\.([0-9]*))?$`)

// ParseCents reads a non-negative amount of money written as a plain decimal ("12000",
// "12000.5", "12000.50") into cents, exactly. More than two decimals, exponents, thousands
// separators and negative amounts are refused rather than rounded or guessed.
func ParseCents(s string) (*big.Int, error) {
	s = strings.TrimSpace(s)
	m := decimal.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("%q is not a number (write it as 1234.56)", s)
	}
	if len(m[3]) > 2 {
		return nil, fmt.Errorf("%q has more than two decimals: money is priced in cents", s)
	}
	c, _ := new(big.Int).SetString(m[2]+(m[3] + "00")[:2], 10)
	if m[1] == "-" && c.Sign() != 0 {
		return nil, fmt.Errorf("%s is negative", s)
	}
	return c, nil
}

// FormatCents writes cents as a decimal with two places: 123456 → "1234.56".
func FormatCents(c *big.Int) string {
	neg := c.Sign() < 0
	s := new(big.Int).Abs(c).String()
	for len(s) < 3 {
		s = "0" + s
	}
	s = s[:len(s)-2] + "." + s[len(s)-2:]
	if neg {
		s = "-" + s
	}
	return s
}

// TotalCents is the sum of the items' costs.
func (p *Pricing) TotalCents() *big.Int {
	t := new(big.Int)
	for _, it := range p.Items {
		t.Add(t, it.Cents)
	}
	return t
}

// ErrNoThroughput is returned when a run has no throughput to price.
var ErrNoThroughput = errors.New("the run has no throughput (0 TPS) to price")

// For prices a run: total cost per TPS, where TPS is the peak sustained TPS when the run searched
// for the peak and the steady state's TPS otherwise.
func (p *Pricing) For(r *report.Results) (*report.PricePerformance, error) {
	tps, of := r.Total.TPS, report.PriceOfSteady
	if r.Peak != nil {
		tps, of = r.Peak.PeakTPS, report.PriceOfPeak
	}
	if !(tps > 0) {
		return nil, ErrNoThroughput
	}
	total := p.TotalCents()
	pp := &report.PricePerformance{Currency: p.Currency, Total: FormatCents(total), TPS: tps,
		PerTPS: FormatCents(PerTPSCents(total, tps)), TPSOf: of}
	for _, it := range p.Items {
		pp.Items = append(pp.Items, report.PriceItem{Name: it.Name, Cost: FormatCents(it.Cents)})
	}
	return pp, nil
}

// PerTPSCents is total / tps in cents, rounded half away from zero. tps is taken as the shortest
// decimal that reads back as the same float (what the results JSON shows, e.g. 123.4), so the
// quotient is exact arithmetic on the numbers a reader sees, not on a binary approximation.
func PerTPSCents(totalCents *big.Int, tps float64) *big.Int {
	t, ok := new(big.Rat).SetString(strconv.FormatFloat(tps, 'f', -1, 64))
	if !ok || t.Sign() <= 0 {
		panic("pricing: PerTPSCents needs a positive, finite tps")
	}
	q := new(big.Rat).Quo(new(big.Rat).SetInt(totalCents), t)
	// round half away from zero: floor((2·num + den) / (2·den)) for q ≥ 0
	num, den := q.Num(), q.Denom()
	n := new(big.Int).Add(new(big.Int).Lsh(num, 1), den)
	return n.Quo(n, new(big.Int).Lsh(den, 1))
}
