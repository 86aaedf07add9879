# sut: the database's processes in the sut section named by every reading's backends added up, the turns a replaced pool took rather than its size ("postgres ×116" beside the machine line's "postgres ×16")
# kill: ./driver/machine TestEmbeddedDatabaseBackendsAreOwn
# file: driver/sut/followed.go
# expect: want postgres ×3
s#		f.most\[name\] = max(f.most\[name\], c)#		f.most[name] += c#
