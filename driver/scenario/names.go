package scenario

// TransactionNames are the names of the scenario's transactions in the order the scenario
// declares them (depth first: a choice's branches and a request's else steps where they appear),
// each once. A run's summary lists its transactions in this order, the same every run, instead
// of the order in which concurrent users happened to complete them first.
func (s *Scenario) TransactionNames() []string {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var walk func([]*Step)
	walk = func(steps []*Step) {
		for _, st := range steps {
			switch st.Kind {
			case StepTransaction:
				add(st.Name) // its requests are not transactions of their own
				continue
			case StepRequest:
				add(st.Request.Name)
				for _, e := range st.Request.Extract {
					walk(e.Else)
				}
			}
			walk(st.Steps)
			for _, b := range st.Branches {
				walk(b.Steps)
			}
		}
	}
	walk(s.Steps)
	return names
}
