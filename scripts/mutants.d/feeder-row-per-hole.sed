# each {{row.COLUMN}} hole takes its own next row: one request's URL, header and body carry different rows
# kill: ./cmd/tradebench TestQuickModeDataFeeder
# file: driver/scenario/feed.go
# expect: not one row's columns
s#^\tif it := env.IterNum(); !d.rowTaken || d.rowIter != it {#\tif it := env.IterNum(); true || !d.rowTaken || d.rowIter != it {#
