package htmlreport

// The report's smaller sections (status codes, price, disclosure, audit) and the number formats
// every page shares.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/report"
)

// codeCount is one status code in the status table, with its share of all answers.
type codeCount struct {
	Code  string
	Count int64
	Share string
}

// statusCodes is the status table, by code, so two runs' tables read in the same order.
func statusCodes(m map[string]int64) []codeCount {
	var total int64
	for _, n := range m {
		total += n
	}
	out := make([]codeCount, 0, len(m))
	for c, n := range m {
		out = append(out, codeCount{Code: c, Count: n, Share: formatPct(float64(n) / float64(max(total, 1)))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// priceView is the price/performance line: "12.34 USD per TPS".
type priceView struct {
	report.PricePerformance
	Of string // which TPS was priced, in words
}

// newPriceView says which throughput was priced (nil: the run was not priced).
func newPriceView(p *report.PricePerformance) *priceView {
	if p == nil {
		return nil
	}
	v := &priceView{PricePerformance: *p}
	switch p.TPSOf {
	case report.PriceOfPeak:
		v.Of = "the peak sustained throughput of the peak search"
	case report.PriceOfSteady:
		v.Of = "the steady-state throughput"
	default:
		v.Of = "the throughput"
	}
	return v
}

// disclosureView is the full disclosure laid out as the papers' section.
type disclosureView struct {
	*report.Disclosure
	Memory        string
	Configuration []field
	Command       string
}

func newDisclosureView(d *report.Disclosure) *disclosureView {
	if d == nil {
		return nil
	}
	v := &disclosureView{Disclosure: d, Command: shellJoin(d.Command)}
	if d.Hardware.MemoryBytes > 0 {
		v.Memory = report.FormatBytes(float64(d.Hardware.MemoryBytes))
	}
	if len(d.Configuration) > 0 {
		v.Configuration = flatten("", d.Configuration)
	}
	return v
}

// shellJoin writes a command line as it could be typed again (arguments with spaces or shell
// characters quoted).
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// auditView is the audit's section: its first 50 violations shown, the rest counted, and what
// it examined, in digits grouped for reading.
type auditView struct {
	*report.AuditSummary
	Count    int64
	Shown    []string
	More     int64
	ByKind   []field
	Examined string
}

func newAuditView(a *report.AuditSummary) *auditView {
	if a == nil {
		return nil
	}
	v := &auditView{AuditSummary: a, Count: max(a.ViolationCount, int64(len(a.Violations)))}
	v.Shown = a.Violations[:min(len(a.Violations), 50)]
	v.More = v.Count - int64(len(v.Shown))
	for k, n := range a.ByKind {
		v.ByKind = append(v.ByKind, field{Key: k, Value: strconv.FormatInt(n, 10)})
	}
	sort.Slice(v.ByKind, func(i, j int) bool { return v.ByKind[i].Key < v.ByKind[j].Key })
	v.Examined = fmt.Sprintf("%s accounts, %s orders, %s holdings, %s quotes in %.2f s",
		groupDigits(strconv.FormatInt(a.Accounts, 10)), groupDigits(strconv.FormatInt(a.Orders, 10)),
		groupDigits(strconv.FormatInt(a.Holdings, 10)), groupDigits(strconv.FormatInt(a.Quotes, 10)), a.Seconds)
	return v
}

// formatTPS writes a throughput with the decimals its size deserves: none in the thousands, two
// below a hundred.
func formatTPS(v float64) string {
	switch {
	case v >= 1000:
		return groupDigits(strconv.FormatFloat(v, 'f', 0, 64))
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// formatPct writes a fraction as a percentage with enough decimals to show small error rates
// (0.0100 %, the papers' criterion, must not read as 0 %).
func formatPct(f float64) string {
	switch {
	case f == 0:
		return "0 %"
	case f >= 0.1:
		return strconv.FormatFloat(100*f, 'f', 1, 64) + " %"
	default:
		return strconv.FormatFloat(100*f, 'f', 4, 64) + " %"
	}
}

// formatTime is a moment in UTC, to the second (notRecorded for results without it).
func formatTime(t time.Time) string {
	if t.IsZero() {
		return notRecorded
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// groupDigits puts thin spaces between thousands: 1234567 → 1 234 567 (unambiguous in every
// locale, unlike a comma or a dot).
func groupDigits(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s) <= 4 {
		if neg {
			return "-" + s
		}
		return s
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(c)
	}
	return b.String()
}
