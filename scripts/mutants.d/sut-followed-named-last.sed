# sut: the database's processes in the sut section named by the last reading only: a pool that shrank by the end says "postgres ×4" for the 16 backends that served the run at once
# kill: ./driver/machine TestEmbeddedDatabaseBackendsAreOwn
# file: driver/sut/followed.go
# expect: want postgres ×3
s#		f.most\[name\] = max(f.most\[name\], c)#		f.most[name] = c#
