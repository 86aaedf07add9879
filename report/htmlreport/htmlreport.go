// Package htmlreport renders results as the pages a performance engineer publishes: the report of
// one run (headline numbers, charts over the run, per-transaction tables, the system under test's
// resources, price/performance and the full disclosure) and the side-by-side comparison of runs.
//
// A page is one self-contained HTML file: the chart library (uPlot, vendored under assets/), the
// styles and the scripts are inlined, and nothing is fetched, so a report opens offline, in a mail
// attachment or an archive years later. Results files are passed around by people, so everything
// taken from them is escaped by html/template; the chart data goes into the page as JSON in a
// script context, which html/template escapes too.
package htmlreport

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tradebench/tradebench/report"
)

var (
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/uPlot.LICENSE
	uplotLicense string
	//go:embed assets/style.css
	styleCSS string
	//go:embed assets/charts.js
	chartsJS string
	//go:embed templates/*.tmpl
	templateFS embed.FS
)

// UPlotVersion is the vendored chart library's version, named in every page's footer.
const UPlotVersion = "1.6.32"

// page is what every page's frame shows: the inlined assets and the footer.
type page struct {
	Title     string
	Generated time.Time
	Version   string
}

// The inlined assets are trusted, vendored content: they are typed so html/template inserts
// them verbatim. The licence goes into a comment, so "*/" in it could not end the comment early.
func (page) UPlotJS() template.JS { return template.JS(uplotJS) }
func (page) ChartsJS() template.JS {
	return template.JS(chartsJS)
}
func (page) CSS() template.CSS { return template.CSS(uplotCSS + "\n" + styleCSS) }
func (page) License() template.JS {
	return template.JS("/* uPlot " + UPlotVersion + " — " + strings.ReplaceAll(uplotLicense, "*/", "* /") + "*/")
}
func (page) UPlotVersion() string { return UPlotVersion }

// Render writes the report of one run.
func Render(w io.Writer, r *report.Results) error {
	return execute(w, "report.tmpl", newReportView(r.ForDrawing()))
}

// Run is one run of a comparison: its results and the label it goes by (usually its file name).
type Run struct {
	Label   string
	Results *report.Results
}

// RenderCompare writes the side-by-side comparison of two or more runs; the first is the
// baseline the deltas are taken against.
func RenderCompare(w io.Writer, runs []Run) error {
	if len(runs) < 2 {
		return fmt.Errorf("a comparison needs at least two runs, got %d", len(runs))
	}
	drawn := make([]Run, len(runs))
	for i, r := range runs {
		drawn[i] = Run{Label: r.Label, Results: r.Results.ForDrawing()}
	}
	return execute(w, "compare.tmpl", newCompareView(drawn))
}

func execute(w io.Writer, name string, data any) error {
	// Render into memory first: a template error halfway must not leave half a page.
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFile renders a page into path atomically: into a temporary file beside it, renamed into
// place only when complete, so a failure never leaves a partial page (or clobbers an old one).
func WriteFile(path string, render func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".report-*.html")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error { f.Close(); os.Remove(tmp); return err }
	if err := render(f); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes 0600; reports are meant to be shared
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// PathFor is where the report of a results file goes: beside it, with the same base name and
// .html (results.json → results.html).
func PathFor(resultsPath string) string {
	ext := filepath.Ext(resultsPath)
	if ext == ".html" { // never overwrite the results with their report
		return resultsPath + ".html"
	}
	return strings.TrimSuffix(resultsPath, ext) + ".html"
}
