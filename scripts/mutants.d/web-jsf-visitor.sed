# web: a visitor's JSF view state bound to a constant
# kill: ./trade/web TestJSFViewStateBoundToVisitor
# file: trade/web/jsf.go
s#return "v:" + q.jsf.visitor#return "v:"#
