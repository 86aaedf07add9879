package report

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/version"
)

// Verification is what `tradebench verify` found: whether a target implements the StockTrader /
// DayTrader application, check by check, grouped in levels. A measurement of a target is only a
// measurement of that application if the target passed; results carry the outcome
// (Results.Verification) so a reader of a published number sees it.
//
// The model lives here, with the other results, because the report renders it and a run's
// results carry it; the checks themselves know the application and live with the jobs.
type Verification struct {
	SchemaVersion int       `json:"schema_version"`
	Tool          string    `json:"tool"`
	Version       string    `json:"version"`
	Target        string    `json:"target"`
	StartedAt     time.Time `json:"started_at"`
	EndedAt       time.Time `json:"ended_at"`
	// Accounts are the user ids verify registered: the only accounts it changed.
	Accounts []string `json:"accounts"`
	// Level is how far the target is compatible: every level up to it passed (its checks passed
	// or were skipped), none of them failed. Conformant: Level == len(Levels).
	Level      int                 `json:"level"`
	Conformant bool                `json:"conformant"`
	Levels     []VerificationLevel `json:"levels"`
	Checks     []Check             `json:"checks"`
}

// VerificationSchemaVersion is the version of the verification JSON.
const VerificationSchemaVersion = 1

// VerificationLevel is one group of checks; it passes when none of its checks failed.
type VerificationLevel struct {
	Number  int    `json:"number"`
	Name    string `json:"name"`
	Outcome string `json:"outcome"` // CheckPass, CheckFail, CheckUnreadable, or CheckSkip when every check was skipped
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	// Unreadable counts the checks whose page verify could not read.
	Unreadable int `json:"unreadable,omitempty"`
}

// A check's outcome.
const (
	CheckPass = "pass"
	CheckFail = "fail"
	CheckSkip = "skip" // the rule cannot apply: the target does not offer it (no JSF), or a fact it needs is missing
	// CheckUnreadable: a page did not show what the check looked for in any layout verify
	// reads. It is no verdict that the target is wrong — the problem may be verify's reader —
	// but the level is not certified while a check of it could not be made.
	CheckUnreadable = "unreadable"
)

// Check is one named rule and what it observed.
type Check struct {
	ID    string `json:"id"`    // level.rule, e.g. "business.commission"
	Level int    `json:"level"` // the number of its level
	Rule  string `json:"rule"`  // what must hold, in a sentence
	// Outcome is CheckPass, CheckFail, CheckUnreadable or CheckSkip; Reason says why it
	// failed, could not be read or was skipped.
	Outcome    string     `json:"outcome"`
	Reason     string     `json:"reason,omitempty"`
	DurationMs float64    `json:"duration_ms"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// Evidence is one exchange a check's outcome rests on: the request, what came back (the status
// and an excerpt of the body), and what the check expected there.
type Evidence struct {
	Request  string `json:"request"`
	Status   int    `json:"status,omitempty"`
	Excerpt  string `json:"excerpt,omitempty"`
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
}

// NewVerification starts the verification of target by this tool: its version, the time, no
// accounts yet. Every verifier (bench/verify, bench/verifyservices) starts from it.
func NewVerification(target string) *Verification {
	return &Verification{SchemaVersion: VerificationSchemaVersion, Tool: "tradebench", Version: version.Version,
		Target: target, StartedAt: time.Now().UTC(), Accounts: []string{}}
}

// Record adds a check that ran since start (a check without an outcome passed), writes its
// line to progress when there is one, and reports whether it passed: what a later check that
// needs it asks.
func (v *Verification) Record(c Check, start time.Time, progress io.Writer) bool {
	if c.Outcome == "" {
		c.Outcome = CheckPass
	}
	c.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	v.Checks = append(v.Checks, c)
	if progress != nil {
		fmt.Fprintf(progress, "%-10s %-28s %s\n", strings.ToUpper(c.Outcome), c.ID, c.Reason)
	}
	return c.Outcome == CheckPass
}

// Failed lists the ids of the checks that failed, in order.
func (v *Verification) Failed() []string { return v.withOutcome(CheckFail) }

// Unreadable lists the ids of the checks whose pages verify could not read, in order.
func (v *Verification) Unreadable() []string { return v.withOutcome(CheckUnreadable) }

func (v *Verification) withOutcome(outcome string) []string {
	var out []string
	for _, c := range v.Checks {
		if c.Outcome == outcome {
			out = append(out, c.ID)
		}
	}
	return out
}

// Judge fills the levels' counts and outcomes, Level and Conformant from the checks; names
// are the levels' names, level 1 first.
func (v *Verification) Judge(names []string) {
	v.Levels = v.Levels[:0]
	for i, n := range names {
		v.Levels = append(v.Levels, VerificationLevel{Number: i + 1, Name: n, Outcome: CheckPass})
	}
	for _, c := range v.Checks {
		if c.Level < 1 || c.Level > len(v.Levels) {
			continue
		}
		l := &v.Levels[c.Level-1]
		switch c.Outcome {
		case CheckPass:
			l.Passed++
		case CheckFail:
			l.Failed++
			l.Outcome = CheckFail
		case CheckUnreadable:
			l.Unreadable++
			if l.Outcome != CheckFail {
				l.Outcome = CheckUnreadable
			}
		default:
			l.Skipped++
		}
	}
	for i, l := range v.Levels {
		if l.Outcome == CheckPass && l.Passed == 0 && l.Skipped > 0 {
			v.Levels[i].Outcome = CheckSkip // nothing checked: no level is passed by skipping it all
		}
	}
	v.Level = 0
	for _, l := range v.Levels {
		if l.Outcome != CheckPass {
			break
		}
		v.Level = l.Number
	}
	v.Conformant = len(v.Levels) > 0 && v.Level == len(v.Levels)
}

// Headline is the outcome in one line: "conformant: all 4 levels passed" or "not conformant:
// DayTrader-compatible to level 1 of 4 (business rules failed: business.commission)".
func (v *Verification) Headline() string {
	if v.Conformant {
		return fmt.Sprintf("conformant: DayTrader-compatible to level %d of %d", v.Level, len(v.Levels))
	}
	var failedLevels []string
	for _, l := range v.Levels {
		if l.Outcome == CheckFail || l.Outcome == CheckUnreadable {
			failedLevels = append(failedLevels, l.Name)
		}
	}
	var what []string
	if f := v.Failed(); len(f) > 0 {
		what = append(what, "failed: "+strings.Join(f, ", "))
	}
	if u := v.Unreadable(); len(u) > 0 {
		what = append(what, "could not be read: "+strings.Join(u, ", "))
	}
	if len(what) == 0 {
		what = append(what, "nothing checked")
	}
	return fmt.Sprintf("not conformant: DayTrader-compatible to level %d of %d (%s %s)", v.Level, len(v.Levels),
		strings.Join(failedLevels, ", "), strings.Join(what, "; "))
}

// Unreachable is the error of a verification that could not be made at all: the target did
// not answer (nothing listening, a wrong host). It is no verdict on an implementation.
type Unreachable struct {
	Target string
	Err    error
}

func (e *Unreachable) Error() string {
	return fmt.Sprintf("cannot verify %s: it does not answer (%v)", e.Target, e.Err)
}

func (e *Unreachable) Unwrap() error { return e.Err }

// NotConformant is the error of a verification that found a failed check (its own exit status
// in the command's table).
type NotConformant struct {
	Target   string
	Headline string
}

func (e *NotConformant) Error() string { return e.Target + ": " + e.Headline }

// Err is nil for a conformant target, else a *NotConformant.
func (v *Verification) Err() error {
	if v.Conformant {
		return nil
	}
	return &NotConformant{Target: dsn.Redact(v.Target), Headline: v.Headline()}
}

// WriteSummary prints the verification for a terminal: the headline first, then every check
// once with its outcome, the evidence of each that failed or could not be read, the levels,
// and the count of each outcome.
func (v *Verification) WriteSummary(w io.Writer) {
	fmt.Fprintln(w, v.Headline())
	level := 0
	counts := map[string]int{}
	for _, c := range v.Checks {
		counts[c.Outcome]++
		if c.Level != level {
			level = c.Level
			if level >= 1 && level <= len(v.Levels) {
				fmt.Fprintf(w, "\nlevel %d: %s\n", level, v.Levels[level-1].Name)
			}
		}
		fmt.Fprintf(w, "  %-10s %-28s %s\n", strings.ToUpper(c.Outcome), c.ID, c.Rule)
		if c.Reason != "" && c.Outcome != CheckPass {
			fmt.Fprintf(w, "             %s\n", c.Reason)
		}
		if c.Outcome == CheckFail || c.Outcome == CheckUnreadable {
			for _, e := range c.Evidence {
				fmt.Fprintf(w, "             request:  %s\n", e.Request)
				if e.Status != 0 {
					fmt.Fprintf(w, "             status:   %d\n", e.Status)
				}
				if e.Expected != "" {
					label := "expected:"
					if c.Outcome == CheckUnreadable {
						label = "looked for:"
					}
					fmt.Fprintf(w, "             %-9s %s\n", label, e.Expected)
				}
				if e.Got != "" {
					fmt.Fprintf(w, "             got:      %s\n", e.Got)
				}
				if e.Excerpt != "" {
					fmt.Fprintf(w, "             excerpt:  %s\n", e.Excerpt)
				}
			}
		}
	}
	fmt.Fprintln(w)
	for _, l := range v.Levels {
		fmt.Fprintf(w, "level %d %-22s %s (%d passed, %d failed, %d unreadable, %d skipped)\n", l.Number, l.Name,
			strings.ToUpper(l.Outcome), l.Passed, l.Failed, l.Unreadable, l.Skipped)
	}
	fmt.Fprintf(w, "%d checks: %d passed, %d failed, %d unreadable, %d skipped\n", len(v.Checks),
		counts[CheckPass], counts[CheckFail], counts[CheckUnreadable], counts[CheckSkip])
	if counts[CheckUnreadable] > 0 {
		fmt.Fprintln(w,
			"unreadable: a page did not show what a check looked for in any layout verify reads; the target may be right and verify's "+
				"reader wrong (the evidence shows what was looked for and the page)")
	}
}

// WriteJSON writes the verification as indented JSON.
func (v *Verification) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteFile writes the verification as indented JSON, atomically, as Results.WriteFile.
func (v *Verification) WriteFile(path string) error { return writeJSONFile(path, v) }

// ReadVerification reads a verification JSON file (bounded, as every results reader).
func ReadVerification(path string) (*Verification, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var v Verification
	dec := json.NewDecoder(io.LimitReader(f, 64<<20))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v.SchemaVersion != VerificationSchemaVersion {
		return nil, fmt.Errorf("%s: not a verification file of schema version %d", path, VerificationSchemaVersion)
	}
	return &v, nil
}

// JUnit's XML, as CI systems read it: one suite per level, one test case per check; a skipped
// check is <skipped>, a failed one <failure> with its evidence.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Name    string       `xml:"name,attr"`
	Tests   int          `xml:"tests,attr"`
	Fails   int          `xml:"failures,attr"`
	Errors  int          `xml:"errors,attr"`
	Skipped int          `xml:"skipped,attr"`
	Time    float64      `xml:"time,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name    string      `xml:"name,attr"`
	Tests   int         `xml:"tests,attr"`
	Fails   int         `xml:"failures,attr"`
	Errors  int         `xml:"errors,attr"`
	Skipped int         `xml:"skipped,attr"`
	Time    float64     `xml:"time,attr"`
	Cases   []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      float64       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"` // a page verify could not read

	Skipped *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the verification as JUnit XML.
func (v *Verification) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "tradebench verify " + dsn.Redact(v.Target)}
	for _, l := range v.Levels {
		s := junitSuite{Name: fmt.Sprintf("level %d: %s", l.Number, l.Name)}
		for _, c := range v.Checks {
			if c.Level != l.Number {
				continue
			}
			tc := junitCase{Name: c.ID, ClassName: "verify." + strings.ReplaceAll(l.Name, " ", "_"), Time: c.DurationMs / 1000}
			var b strings.Builder
			for _, e := range c.Evidence {
				fmt.Fprintf(&b, "request: %s\nstatus: %d\nexpected: %s\ngot: %s\nexcerpt: %s\n\n", e.Request, e.Status, e.Expected, e.Got, e.Excerpt)
			}
			switch c.Outcome {
			case CheckFail:
				tc.Failure = &junitMessage{Message: c.Rule + ": " + c.Reason, Text: b.String()}
				s.Fails++
			case CheckUnreadable:
				tc.Error = &junitMessage{Message: "unreadable: " + c.Reason, Text: b.String()}
				s.Errors++
			case CheckSkip:
				tc.Skipped = &junitMessage{Message: c.Reason}
				s.Skipped++
			}
			s.Tests++
			s.Time += tc.Time
			s.Cases = append(s.Cases, tc)
		}
		out.Tests += s.Tests
		out.Fails += s.Fails
		out.Errors += s.Errors
		out.Skipped += s.Skipped
		out.Time += s.Time
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// VerificationSummary is what a run's results say about its target's verification: the
// outcome and level, so a published number says whether its target implements the application.
type VerificationSummary struct {
	Conformant bool     `json:"conformant"`
	Level      int      `json:"level"`
	Levels     int      `json:"levels"`
	Headline   string   `json:"headline"`
	Failed     []string `json:"failed,omitempty"`
	Unreadable []string `json:"unreadable,omitempty"`
	// Forced: the target was measured although it was not conformant (--verify-force).
	Forced bool      `json:"forced,omitempty"`
	At     time.Time `json:"at"`
}

// Summary is the verification as a run's results carry it.
func (v *Verification) Summary() *VerificationSummary {
	return &VerificationSummary{Conformant: v.Conformant, Level: v.Level, Levels: len(v.Levels),
		Headline: v.Headline(), Failed: v.Failed(), Unreadable: v.Unreadable(), At: v.EndedAt}
}

// Line is the verification as a results header shows it: the headline, and when the target was
// measured although it is not conformant, that it was forced.
func (s *VerificationSummary) Line() string {
	if s.Forced {
		return s.Headline + " — measured anyway (--verify-force)"
	}
	return s.Headline
}

// Finish ends a verification whose checks have run: it stamps the end, judges the levels, and,
// when ctx ended first, marks it not conformant (the checks not made were skipped: that is no
// verdict on the target) and returns the interruption.
func (v *Verification) Finish(ctx context.Context, levels []string) error {
	v.EndedAt = time.Now().UTC()
	v.Judge(levels)
	if err := ctx.Err(); err != nil {
		v.Conformant = false
		return fmt.Errorf("verification interrupted: %w", err)
	}
	return nil
}
