package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestJSFViewStateBoundToVisitor: before login a view state is bound to the visitor cookie, so
// visitor B posting the login form of welcome.faces with visitor A's view state is refused
// with 403 and not logged in, while A's own post of the same token logs in. (TestJSFBadInput's
// foreign view state comes from a logged-in session, whose binding the visitor's does not share.)
//
// Mutant killed: the visitor binding replaced by a constant in viewStateBinding (`return "v:"`
// instead of `"v:" + q.jsf.visitor`): any visitor's token is accepted from any other.
func TestJSFViewStateBoundToVisitor(t *testing.T) {
	e := newJSFEnv(t)
	a, b := e.client(t), e.client(t)
	a.sample("WelcomePing JSF", "POST", "welcome.faces", "DayTrader Login")
	b.sample("WelcomePing JSF", "POST", "welcome.faces", "DayTrader Login") // B has its own visitor cookie
	b.vs = a.vs
	login := []string{"login:password", "xxx", "login:submit", "Log in", "login:uid", "uid:2", "login_SUBMIT", "1"}
	if code, body := b.do("POST", "welcome.faces", login...); code != http.StatusForbidden || strings.Contains(body, "Ready to Trade") {
		t.Fatalf("visitor b posted visitor a's view state: %d, want 403:\n%.1500s", code, body)
	}
	a.sample("Login JSF", "POST", "welcome.faces", "Ready to Trade", login...) // a.vs is still A's token
}
