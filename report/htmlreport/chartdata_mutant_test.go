package htmlreport

import (
	"strings"
	"testing"
)

// TestReportChartDataCannotCloseItsScript: a SUT process and a transaction named
// `</script><script>…` reach the report's chart data (series labels), and the page stays
// offline-clean with no `</script><script>` in it: the data is escaped for its script element.
// (TestReportIsSelfContainedAndEscaped looks for the name verbatim, which JSON's own escaping
// of its quotes hides even when the script element is broken.)
//
// Mutant killed: the report's chart JSON written without HTML escaping (reportView.ChartData
// returning template.JS of an encoder with SetEscapeHTML(false)).
func TestReportChartDataCannotCloseItsScript(t *testing.T) {
	r := sample(100)
	r.SUT.Processes[0].Name = hostile
	page := render(t, r)
	assertOffline(t, page)
	if strings.Contains(strings.ToLower(page), "</script><script>") || strings.Contains(page, "<img src=x") {
		t.Fatal("a name from the results file closed the chart data's script element")
	}
	if !strings.Contains(page, `\u003c/script\u003e\u003cscript\u003e`) {
		t.Fatal("the hostile name is not in the chart data at all: the test proves nothing")
	}
}
