# sut: the database's processes in the sut section named by the last reading only: a pool that shrank by the end says "postgres ×4" for the 17 backends that served the run
# kill: ./driver/machine TestEmbeddedDatabaseBackendsAreOwn
# file: driver/sut/followed.go
# expect: want postgres ×3
s#	for _, name := range f.names {#	for _, l := range f.found {\n		name := l.Name#
