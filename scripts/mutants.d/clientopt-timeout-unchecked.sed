# the remote clients' options no longer refuse a negative call timeout
# kill: ./trade/remote/clientopt TestSetDefaultsAndValidate
# file: trade/remote/clientopt/clientopt.go
s#case o.Timeout < 0:#case false \&\& o.Timeout < 0:#
