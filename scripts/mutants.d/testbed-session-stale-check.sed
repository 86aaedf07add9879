# a tier's reused revocation check refuses a session stamped later than the check saw
# kill: ./trade/web TestNewLoginElsewhereOutlivesAnOldCheck
# file: trade/web/session.go
s#ok \&\& stamp >= ss.Stamp {#ok {#
s#			if stamp > ss.Stamp {#			if stamp != ss.Stamp {#
