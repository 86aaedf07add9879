package xmlmark

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"testing"

	"github.com/beevik/etree"
	"github.com/orisano/gosax"
)

// BenchmarkParse measures raw parse speed (MB/s) of the three parsers on the XML Mark paper's two
// document sizes: etree building a tree, gosax reading events, and encoding/xml's Decoder.Token
// as the standard-library baseline. No access work; see BenchmarkScan for that.
//
//	go test ./xmlmark -run '^$' -bench Parse -benchtime 2s
func BenchmarkParse(b *testing.B) {
	for _, lines := range []int{DOMLines, StreamLines} {
		data, err := Generate(lines)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("etree/%d", lines), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				doc := etree.NewDocument()
				if err := doc.ReadFromBytes(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("gosax/%d", lines), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var src bytes.Reader
			r := gosax.NewReaderSize(nil, 64<<10)
			for b.Loop() {
				src.Reset(data)
				r.Reset(&src)
				for {
					e, err := r.Event()
					if err != nil {
						b.Fatal(err)
					}
					if e.Type() == gosax.EventEOF {
						break
					}
				}
			}
		})
		b.Run(fmt.Sprintf("encoding-xml/%d", lines), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var src bytes.Reader
			for b.Loop() {
				src.Reset(data)
				dec := xml.NewDecoder(&src)
				for {
					_, err := dec.Token()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkScan measures the streaming transactions as the runner runs them (scan the whole
// document, access the Currency and PriceAmount of every line item, check nesting).
func BenchmarkScan(b *testing.B) {
	for _, lines := range []int{DOMLines, StreamLines} {
		data, _ := Generate(lines)
		sax, pull := NewSAXScanner(), NewPullScanner()
		for name, scan := range map[string]func([]byte, int) (ScanResult, error){"sax": sax.Scan, "pull": pull.Scan} {
			b.Run(fmt.Sprintf("%s/%d", name, lines), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := scan(data, lines); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTree measures one tree transaction per iteration with each built-in DOM
// configuration's settings, on one goroutine (the runner adds concurrency).
func BenchmarkTree(b *testing.B) {
	for _, name := range []string{"DOM1", "DOM2", "DOM3", "DOM4", "DOM5", "DOM6"} {
		c, err := LoadConfig(name)
		if err != nil {
			b.Fatal(err)
		}
		docs, err := c.LoadDocuments()
		if err != nil {
			b.Fatal(err)
		}
		data := docs[0].Data
		o := TreeOptions{Selection: c.Selection, ContentModification: c.ContentModification,
			StructureModification: c.StructureModification, Serialize: c.Serialization > 0}
		b.Run(name, func(b *testing.B) {
			var w TreeWorker
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.Run(data, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
