package htmlreport

import (
	"html"
	"regexp"
	"strconv"
	"strings"
)

// Drawn is what a browser made of a page's charts, read from the DOM after its scripts ran
// (e.g. Chromium's --dump-dom): how many charts the page lays out, how many canvases uPlot drew,
// how many the page's script reports drawn (-1: the script never finished), and the errors it
// recorded. A page is whole when Places == Canvases == Reported and Errors is empty.
type Drawn struct {
	Places, Canvases, Reported int
	Errors                     string
}

var (
	drawnAttr  = regexp.MustCompile(`data-charts-drawn="(\d+)"`)
	errorsAttr = regexp.MustCompile(`data-chart-errors="([^"]*)"`)
)

// Inspect reads a page's DOM after its scripts ran.
func Inspect(dom string) Drawn {
	d := Drawn{Places: strings.Count(dom, `class="plot"`), Canvases: strings.Count(dom, "<canvas"), Reported: -1}
	if m := drawnAttr.FindStringSubmatch(dom); m != nil {
		d.Reported, _ = strconv.Atoi(m[1])
	}
	if m := errorsAttr.FindStringSubmatch(dom); m != nil {
		d.Errors = html.UnescapeString(m[1])
	}
	return d
}

// OK reports whether every chart the page lays out was drawn, without a script error.
func (d Drawn) OK() bool {
	return d.Errors == "" && d.Places == d.Canvases && d.Canvases == d.Reported
}
