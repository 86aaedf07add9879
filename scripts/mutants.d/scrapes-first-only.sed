# --sut-metrics' list keeps only its first endpoint
# kill: ./driver/sut TestScrapes
# file: driver/sut/scrape.go
# expect: two endpoints
s#^\t\tsrcs = append(srcs, src)$#\t\tsrcs = append(srcs, src); break#
