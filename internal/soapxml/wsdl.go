package soapxml

import (
	"net/http"
	"strconv"
	"strings"
)

// IsWSDLQuery reports whether a URL's raw query asks for the WSDL: ?wsdl, ?WSDL, ?wsdl=1, …
func IsWSDLQuery(q string) bool {
	for _, part := range strings.Split(q, "&") {
		if k, _, _ := strings.Cut(part, "="); strings.EqualFold(k, "wsdl") {
			return true
		}
	}
	return false
}

// WSDL is a service description cut at its endpoint address, so that serving it to a request
// only writes the address the request came to.
type WSDL struct {
	Head string // up to and including `location="`
	Tail string // from the closing quote on
}

// Doc returns the description with its endpoint at location.
func (d *WSDL) Doc(location string) []byte {
	b := make([]byte, 0, len(d.Head)+len(location)+len(d.Tail)+16)
	b = append(b, d.Head...)
	b = AppendAttr(b, location)
	return append(b, d.Tail...)
}

// Serve answers GET or HEAD ?wsdl with the description, its endpoint being where it was asked.
func (d *WSDL) Serve(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	doc := d.Doc(scheme + "://" + r.Host + r.URL.Path)
	if r.Method == http.MethodHead {
		hd := w.Header()
		hd["Content-Type"] = contentTypeXML
		hd["Content-Length"] = []string{strconv.Itoa(len(doc))}
		w.WriteHeader(http.StatusOK)
		return
	}
	Write(w, http.StatusOK, doc)
}

// WriteSequence writes an xs:sequence of fs, one xs:element a line at indent, for a WSDL's
// schema: so the description is made from the same Fields the Reader checks, and cannot drift
// from them.
func WriteSequence(sb *strings.Builder, fs []Field, indent string) {
	sb.WriteString(indent + "<xs:sequence>\n")
	for _, f := range fs {
		sb.WriteString(indent + `  <xs:element name="` + f.Name + `" type="` + f.XSD + `"`)
		if f.Optional {
			sb.WriteString(` minOccurs="0"`)
		}
		if f.Many {
			sb.WriteString(` maxOccurs="unbounded"`)
		}
		sb.WriteString("/>\n")
	}
	sb.WriteString(indent + "</xs:sequence>\n")
}
