package report

// Interrupted is the verdict of a run stopped before its end (Ctrl-C, SIGTERM): its results hold
// what was measured until then — the finished steps of a capacity search, the seconds of a cut
// drive — and no claim. It is never valid, whatever the rules say of the part that ran.
const Interrupted = "interrupted"

// RuleComplete is the reason of an interrupted verdict: the run did not reach its end.
const RuleComplete = "complete"

// MarkInterrupted makes v the verdict of an interrupted run: its rules stay, for the reader, and
// the reason is why the run ended early (detail).
func (v *Validity) MarkInterrupted(detail string) {
	r := RuleResult{Rule: RuleComplete, Outcome: RuleFail, Detail: detail}
	v.Verdict = Interrupted
	v.Reasons = append([]RuleResult{r}, v.Reasons...)
	v.Rules = append([]RuleResult{r}, v.Rules...)
}
