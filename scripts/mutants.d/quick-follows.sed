# quick mode: redirects followed by default (the monolith's root measures the login page's 401)
# kill: ./cmd/tradebench TestQuickModeMeasuresWhatTheURLAnswers
# file: cmd/tradebench/drive.go
s#\tcfg.Redirects = httpc.RedirectNone$#\tcfg.Redirects = httpc.RedirectSameOrigin#
