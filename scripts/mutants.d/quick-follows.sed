# quick mode: redirects followed by default (the monolith's root measures the login page's 401)
# kill: ./cmd/tradebench TestQuickModeMeasuresWhatTheURLAnswers
# file: driver/quick.go
s#r.FollowRedirects = q.FollowRedirects#r.FollowRedirects = true#
