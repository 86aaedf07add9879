# the dashboard accepts any number of connections
# kill: ./driver/live TestLiveViewsGuarded
# file: driver/live/session.go
# expect: beyond the cap
s#^\t\tln = httpserve.MaxConns(ln, opt.MaxConns)#\t\t_ = httpserve.MaxConns#
