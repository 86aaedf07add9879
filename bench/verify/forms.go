package verify

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Forms followed as a browser follows them: a form is read from the page that shows it and
// sent with every field it carries — hidden fields (a JSF view state, login_SUBMIT, an
// idempotency key), pre-filled values, the submit button's own name and value — with the
// fields verify fills set over them, to the form's action by its method, with the cookies of
// the GET that showed it. JSF login, registration, buy and sell all go through here (follow).

// form is one <form> of a page.
type form struct {
	action, method string
	fields         []field // in document order, the successful controls but submit buttons
	submits        []field // the submit buttons that have a name
}

type field struct{ name, value string }

// has reports whether the form has a field (or button) named name, and its value.
func (f form) has(name string) (string, bool) {
	for _, x := range append(f.fields, f.submits...) {
		if x.name == name {
			return x.value, true
		}
	}
	return "", false
}

// values is what a browser sends when the first named submit button (or submit, when one of
// that name exists) is pressed, with fill set over the form's own values.
func (f form) values(submit string, fill url.Values) url.Values {
	out := url.Values{}
	for _, x := range f.fields {
		if _, over := fill[x.name]; !over {
			out.Add(x.name, x.value)
		}
	}
	pressed := false
	for _, s := range f.submits {
		if (submit == "" || s.name == submit) && !pressed {
			if _, over := fill[s.name]; !over {
				out.Add(s.name, s.value)
			}
			pressed = true
		}
	}
	for k, vs := range fill {
		out[k] = vs
	}
	return out
}

// forms reads every form of the page.
func (d *doc) forms() []form {
	var out []form
	walk(d.root, func(n *html.Node) bool {
		if n.DataAtom != atom.Form {
			return true
		}
		f := form{method: "GET"}
		f.action, _ = attr(n, "action")
		if m, ok := attr(n, "method"); ok && strings.EqualFold(m, "post") {
			f.method = "POST"
		}
		walk(n, func(c *html.Node) bool {
			name, named := attr(c, "name")
			val, _ := attr(c, "value")
			_, disabled := attr(c, "disabled")
			if disabled {
				return true
			}
			switch c.DataAtom {
			case atom.Input:
				typ, _ := attr(c, "type")
				switch strings.ToLower(typ) {
				case "submit", "image":
					if named {
						f.submits = append(f.submits, field{name, val})
					}
				case "reset", "button", "file":
				case "checkbox", "radio":
					if _, on := attr(c, "checked"); on && named {
						if _, ok := attr(c, "value"); !ok {
							val = "on"
						}
						f.fields = append(f.fields, field{name, val})
					}
				default:
					if named {
						f.fields = append(f.fields, field{name, val})
					}
				}
			case atom.Button:
				typ, _ := attr(c, "type")
				if t := strings.ToLower(typ); (t == "" || t == "submit") && named {
					f.submits = append(f.submits, field{name, val})
				}
			case atom.Textarea:
				if named {
					f.fields = append(f.fields, field{name, textOf(c)})
				}
				return false
			case atom.Select:
				if named {
					f.fields = append(f.fields, field{name, selected(c)})
				}
				return false
			}
			return true
		})
		out = append(out, f)
		return false
	})
	return out
}

// selected is a select's value as a browser sends it: the selected option's, else the first's.
func selected(sel *html.Node) string {
	var first, chosen *html.Node
	walk(sel, func(o *html.Node) bool {
		if o.DataAtom == atom.Option {
			if first == nil {
				first = o
			}
			if _, on := attr(o, "selected"); on && chosen == nil {
				chosen = o
			}
		}
		return true
	})
	if chosen == nil {
		chosen = first
	}
	if chosen == nil {
		return ""
	}
	if v, ok := attr(chosen, "value"); ok {
		return v
	}
	return textOf(chosen)
}

// formWith is the first form of the page that has every one of names as a field or button;
// where a name=value pair is given ("symbol=s:1"), the field must have that value.
func (d *doc) formWith(names ...string) (form, bool) {
	for _, f := range d.forms() {
		all := true
		for _, n := range names {
			name, want, valued := strings.Cut(n, "=")
			v, ok := f.has(name)
			if !ok || (valued && v != want) {
				all = false
				break
			}
		}
		if all {
			return f, true
		}
	}
	return form{}, false
}
