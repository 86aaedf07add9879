# tradejob: the main job on a database server adds no followed source: its database's backends are no sut entry, their CPU not beside the server's
# kill: ./bench/tradejob TestRunEmbeddedOnPostgres
# file: bench/tradejob/tradejob.go
# expect: no sut entry for the database
s#		d.Resources = append(d.Resources, sut.FollowSelf())#		_ = sut.FollowSelf#
