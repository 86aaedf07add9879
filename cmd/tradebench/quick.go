package main

import (
	"flag"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/cliflag"
)

// quickFlags are quick mode's flags, spelled as wrk, hey and oha spell them: --url, -H
// (repeatable), -m and --body (text or @FILE). Redirects are the drive's --redirects, whose
// default in quick mode is none: the URL's own answer is what is measured.
type quickFlags struct {
	url     string
	headers cliflag.List
	method  string
	body    string
	tmpl    bool
	data    string
	perUser bool
}

func (q *quickFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.url, "url", "", "quick mode: load one URL like wrk/hey (-c users, keep-alive): every HTTP answer is measured and its status counted (401 or 503 too, as wrk does), only a connection failure is refused or failed; redirects are not followed unless --redirects says so")
	fs.Var(&q.headers, "header", "quick mode: add a request header 'Name: value' (repeatable)")
	fs.Var(&q.headers, "H", "same as --header")
	fs.StringVar(&q.method, "method", "", "quick mode: the HTTP method (default GET, or POST with --body)")
	fs.StringVar(&q.method, "m", "", "same as --method")
	fs.StringVar(&q.body, "body", "", "quick mode: the request body, as given, or @FILE for a file's content")
	fs.StringVar(&q.data, "data", "", "quick mode: a CSV file of rows for the virtual users (a header row names the columns): {{row.COLUMN}} in the URL, a header or a --body-template body is that column of the row; each iteration takes the next row, round-robin (docs/guide.md \"Data rows from a CSV file\")")
	fs.BoolVar(&q.perUser, "data-per-user", false, "quick mode: with --data, each virtual user keeps one row (user n the row n, wrapping) instead of rows round-robin")
	fs.BoolVar(&q.tmpl, "body-template", false, "quick mode: --body is a template, as a scenario's: {{counter NAME}} (0, 1, 2, … across users), {{rand A B}} or {A..B}, {{pick A B …}} (one word at random), {{user}}, {{iter}} (docs/guide.md \"Templated bodies in quick mode\")")
}

// request is the drive's quick-mode request, or nil; a quick-mode flag without --url is refused.
func (q *quickFlags) request(fs *flag.FlagSet) (*driver.QuickRequest, error) {
	given := cliflag.Given(fs)
	if q.url == "" {
		for _, f := range []string{"H", "header", "m", "method", "body", "body-template", "data", "data-per-user"} {
			if given[f] {
				return nil, cliflag.Errorf("%s shapes quick mode's request: give it with --url (a scenario's requests carry their own headers, method and body)", cliflag.Dashed(f))
			}
		}
		return nil, nil
	}
	body, err := driver.QuickBody(q.body)
	if err != nil {
		return nil, cliflag.Errorf("--body %v", err)
	}
	if q.tmpl && len(body) == 0 {
		return nil, cliflag.Errorf("--body-template makes --body a template: give --body")
	}
	req := &driver.QuickRequest{Method: q.method, Headers: q.headers, Body: body, BodyTemplate: q.tmpl}
	if q.perUser && q.data == "" {
		return nil, cliflag.Errorf("--data-per-user says how --data's rows are shared: give --data FILE.csv")
	}
	if q.data != "" {
		if req.Data, err = driver.ReadQuickData(q.data, q.perUser); err != nil {
			return nil, cliflag.Errorf("--data %v", err)
		}
	}
	return req, nil
}
