# quick mode: redirects followed by default (the monolith's root measures the login page's 401)
# kill: ./cmd/tradebench TestQuickModeMeasuresWhatTheURLAnswers
# file: cmd/tradebench/drive.go
s#f.cfg.Redirects = httpc.RedirectNone // quick mode#f.cfg.Redirects = httpc.RedirectSameOrigin // quick mode#
