# results: the JSON written before the price is put in (what made `run` write its results twice)
# kill: ./report/publish TestWriteOnce
# file: report/publish/publish.go
# expect: not priced
/^\tPrice(res, o.price, log)$/d
s#^\tfmt.Fprintf(log, "results written to %s\\n", o.path)$#&\n\tPrice(res, o.price, log)#
