// Package xmlmark is XML Mark, the XML document lifecycle benchmark of the 2005 XML Mark paper (XML Mark 1.1,
// after Sun's XML Test): worker goroutines with no think time each process one invoice document
// per transaction, from memory to memory.
//
// Transactions:
//   - dom (github.com/beevik/etree): parse into a tree; access the Currency attribute and
//     PriceAmount of the first Selection% of line items; raise the PriceAmount of the first
//     ContentModification% by exactly 10% (decimal arithmetic, never float); delete
//     StructureModification% of line items (spread evenly) and append as many new ones before the
//     Summary, numbered upward from the largest LineID; serialize to a memory buffer on
//     Serialization% of transactions. The Serialization key decides — the paper's footnote 1: Sun's
//     1.0 kit read the Validation key there by mistake.
//   - sax (github.com/orisano/gosax) and pull (encoding/xml Decoder.Token): scan the whole
//     document and access the same values; no modification, no serialization. gosax does not
//     check that end tags match, so the sax scanner checks nesting itself.
//
// The mix: DOMUsage, SAXUsage and PullParserUsage are relative weights. The old kit had one
// streaming parser per platform (Java read SAXUsage, C# PullParserUsage), which is why the original kit's
// SAX configurations set both to 100; here both exist, so SAX1–SAX3 run half sax and half pull,
// each its own transaction in the results (RunOptions.Only, --only, runs one kind).
//
// Validation: Validation% of each kind's transactions (spread evenly, as Serialization is over
// tree transactions) validate their document against the invoice schema (XSD, the old kit's
// sm-inv.xsd re-created) with github.com/jacoelho/xsd, a pure-Go, streaming XML Schema 1.0
// validator that agrees with libxml2's xmllint --schema on every rule the schema uses (a test
// checks that on a generated corpus). Tree transactions validate after parsing; sax and pull
// transactions validate beside the scan. The validator has its own tokenizer and consumes
// neither an etree tree nor parser events, so a validated transaction reads the document twice:
// for the streaming transactions especially, validation costs a second, slower parse rather than
// the small extra a validating parser adds to its own pass (docs/xmlmark.md). A document the
// schema rejects fails every validated transaction with an *InvalidError (the rule, the element
// path, the validator's message).
//
// Every transaction's outcome (items read, digest of the values read, items raised, deleted and
// appended, serialized size) is checked against a preflight run of the same document, so a
// parser that skipped work fails instead of looking fast.
package xmlmark
