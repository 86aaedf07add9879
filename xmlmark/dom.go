package xmlmark

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// Items is how many of n line items a percentage selects: n × pct / 100, rounded half up. The
// access phase and content modification work on the first Items(n, pct) line items; the structure
// modification deletes that many, spread evenly over the document.
func Items(n, pct int) int {
	if n <= 0 || pct <= 0 {
		return 0
	}
	if pct >= 100 {
		return n
	}
	return (n*pct + 50) / 100
}

// Access is what an access phase read: the Currency attribute and PriceAmount of each selected
// line item. Digest identifies the exact values read (FNV-1a over each currency and amount text in
// document order), so two parsers can be shown to have read the same thing.
type Access struct {
	Items  int     // line items whose values were read
	Total  Decimal // sum of their PriceAmounts, exact
	Digest uint64
}

// accessor accumulates an Access.
type accessor struct {
	a Access
	h uint64
}

const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

func (ac *accessor) add(currency, amount []byte) error {
	amount = bytes.TrimSpace(amount)
	if len(currency) == 0 {
		return fmt.Errorf("line item %d: Price has no Currency attribute", ac.a.Items+1)
	}
	d, err := parseDecimalBytes(amount)
	if err != nil {
		return fmt.Errorf("line item %d: PriceAmount: %w", ac.a.Items+1, err)
	}
	if ac.a.Total, err = ac.a.Total.Add(d); err != nil {
		return fmt.Errorf("line item %d: summing prices: %w", ac.a.Items+1, err)
	}
	if ac.a.Items == 0 {
		ac.h = fnvOffset
	}
	for _, part := range [2][]byte{currency, amount} {
		for _, c := range part {
			ac.h = (ac.h ^ uint64(c)) * fnvPrime
		}
		ac.h = (ac.h ^ 0) * fnvPrime
	}
	ac.a.Items++
	ac.a.Digest = ac.h
	return nil
}

// Kind names a transaction kind; it is also the transaction's name in the results.
type Kind string

// The three transaction kinds.
const (
	KindDOM  Kind = "dom"  // tree: github.com/beevik/etree (parse, access, modify, serialize)
	KindSAX  Kind = "sax"  // streaming push-style scan: github.com/orisano/gosax
	KindPull Kind = "pull" // streaming pull scan: encoding/xml Decoder.Token
)

// ParseTree parses data into a tree. A document that is not well-formed, or whose root is not an
// Invoice, is an error.
func ParseTree(data []byte) (*etree.Document, error) {
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(data); err != nil {
		return nil, fmt.Errorf("parsing the document: %w", err)
	}
	// etree keeps whatever follows the root element; XML allows only one root and no text
	// outside it, and the streaming scanners reject both, so the tree does too
	roots := 0
	for _, t := range doc.Child {
		switch t := t.(type) {
		case *etree.Element:
			roots++
		case *etree.CharData:
			if strings.TrimSpace(t.Data) != "" {
				return nil, fmt.Errorf("parsing the document: text outside the root element")
			}
		}
	}
	if roots > 1 {
		return nil, fmt.Errorf("parsing the document: more than one root element")
	}
	root := doc.Root()
	if root == nil {
		return nil, fmt.Errorf("parsing the document: no root element")
	}
	if root.Tag != tagInvoice {
		return nil, fmt.Errorf("not an invoice: the root element is <%s>, want <%s>", root.Tag, tagInvoice)
	}
	return doc, nil
}

// lineItems returns the invoice's line items in document order.
func lineItems(doc *etree.Document) []*etree.Element {
	return doc.Root().SelectElements(tagLineItem)
}

// AccessTree reads the Currency attribute and PriceAmount of the first k line items.
func AccessTree(doc *etree.Document, k int) (Access, error) {
	var ac accessor
	items := lineItems(doc)
	for _, it := range items[:min(k, len(items))] {
		price := it.SelectElement(tagPrice)
		if price == nil {
			return Access{}, fmt.Errorf("line item %d has no Price", ac.a.Items+1)
		}
		amount := price.SelectElement(tagPriceAmount)
		if amount == nil {
			return Access{}, fmt.Errorf("line item %d has no Price/PriceAmount", ac.a.Items+1)
		}
		if err := ac.add([]byte(price.SelectAttrValue(attrCurrency, "")), []byte(amount.Text())); err != nil {
			return Access{}, err
		}
	}
	return ac.a, nil
}

// RaisePrices raises the PriceAmount of the first Items(n, pct) line items by exactly 10% and
// returns how many it changed.
func RaisePrices(doc *etree.Document, pct int) (int, error) {
	items := lineItems(doc)
	k := Items(len(items), pct)
	for i, it := range items[:k] {
		amount := it.FindElement(tagPrice + "/" + tagPriceAmount)
		if amount == nil {
			return i, fmt.Errorf("line item %d has no Price/PriceAmount", i+1)
		}
		d, err := ParseDecimal(amount.Text())
		if err != nil {
			return i, fmt.Errorf("line item %d: PriceAmount: %w", i+1, err)
		}
		if d, err = d.RaiseTenPercent(); err != nil {
			return i, fmt.Errorf("line item %d: %w", i+1, err)
		}
		amount.SetText(d.String())
	}
	return k, nil
}

// Restructure is what a structure modification did.
type Restructure struct {
	Deleted, Appended int
	// FirstID and LastID are the LineIDs given to the appended items (0 when none).
	FirstID, LastID int
}

// ReplaceLineItems deletes Items(n, pct) line items, spread evenly over the invoice, and appends
// as many new ones after the last line item (before the Summary), numbered upward from the
// largest LineID the invoice had, so no id is reused even if the item holding it was deleted.
func ReplaceLineItems(doc *etree.Document, pct int) (Restructure, error) {
	root := doc.Root()
	items := lineItems(doc)
	n := len(items)
	k := Items(n, pct)
	if k == 0 {
		return Restructure{}, nil
	}
	maxID := 0
	for i, it := range items {
		idEl := it.SelectElement(tagLineID)
		if idEl == nil {
			return Restructure{}, fmt.Errorf("line item %d has no LineID", i+1)
		}
		id, err := strconv.Atoi(strings.TrimSpace(idEl.Text()))
		if err != nil || id < 1 {
			return Restructure{}, fmt.Errorf("line item %d: LineID %q is not a positive integer", i+1, idEl.Text())
		}
		maxID = max(maxID, id)
	}
	for j := 0; j < k; j++ {
		root.RemoveChild(items[j*n/k]) // j*n/k is strictly increasing for k <= n
	}
	// the new items go where the line items end: before the Summary, or last if there is none
	at := len(root.Child)
	if s := root.SelectElement(tagSummary); s != nil {
		at = s.Index()
	}
	for j := 1; j <= k; j++ {
		root.InsertChildAt(at, buildElement(lineItem(maxID+j)))
		at++
	}
	return Restructure{Deleted: k, Appended: k, FirstID: maxID + 1, LastID: maxID + k}, nil
}

// buildElement makes the etree element for a generated node.
func buildElement(n node) *etree.Element {
	e := etree.NewElement(n.tag)
	for _, a := range n.attrs {
		e.CreateAttr(a.key, a.value)
	}
	if len(n.kids) == 0 {
		e.SetText(n.text)
	}
	for _, k := range n.kids {
		e.AddChild(buildElement(k))
	}
	return e
}

// SerializeTree writes the tree as XML to w and returns the bytes written.
func SerializeTree(doc *etree.Document, w io.Writer) (int64, error) {
	return doc.WriteTo(w)
}

// TreeOptions are one tree transaction's settings: percentages of line items (0–100) and
// whether to serialize.
type TreeOptions struct {
	Selection             int
	ContentModification   int
	StructureModification int
	Serialize             bool
	// Validator, when set, validates the document against the invoice schema after it is parsed
	// (a validating parser's place in the life of a document). The validator tokenizes the bytes
	// itself — it cannot read an etree tree — so this adds a second pass over the document.
	Validator *Validator
}

// TreeResult is what one tree transaction did.
type TreeResult struct {
	Access      Access
	Raised      int
	Restructure Restructure
	Serialized  int64 // bytes written (0 when not serialized)
}

// TreeWorker runs tree transactions; one per goroutine. It keeps its serialization buffer
// between transactions, as the old kit wrote to a memory stream.
type TreeWorker struct {
	out bytes.Buffer
}

// Output is the last serialized document (valid until the next Run).
func (w *TreeWorker) Output() []byte { return w.out.Bytes() }

// Run is one tree transaction, the whole life of one document: parse, (validate,) access,
// modify, serialize. An invalid document ends the transaction with the validator's
// *InvalidError, before any modification.
func (w *TreeWorker) Run(data []byte, o TreeOptions) (TreeResult, error) {
	var r TreeResult
	doc, err := ParseTree(data)
	if err != nil {
		return r, err
	}
	if o.Validator != nil {
		if err := o.Validator.Validate(data); err != nil {
			return r, err
		}
	}
	if o.Selection > 0 {
		if r.Access, err = AccessTree(doc, Items(len(lineItems(doc)), o.Selection)); err != nil {
			return r, fmt.Errorf("access: %w", err)
		}
	}
	if o.ContentModification > 0 {
		if r.Raised, err = RaisePrices(doc, o.ContentModification); err != nil {
			return r, fmt.Errorf("content modification: %w", err)
		}
	}
	if o.StructureModification > 0 {
		if r.Restructure, err = ReplaceLineItems(doc, o.StructureModification); err != nil {
			return r, fmt.Errorf("structure modification: %w", err)
		}
	}
	if o.Serialize {
		w.out.Reset()
		if r.Serialized, err = SerializeTree(doc, &w.out); err != nil {
			return r, fmt.Errorf("serialize: %w", err)
		}
	}
	return r, nil
}
