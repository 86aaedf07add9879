# machine: a loopback --sut-metrics server's process, found by its scraped port, is read from /proc like any other: listed among the busiest others although its CPU is counted own through the scrape
# kill: ./driver/machine TestScrapedServerIsNotAmongOthers
# file: driver/machine/machine.go
# expect: the scraped server is among the busiest others
s#scraped\[pid\] = a.scrapedOK#scraped[pid] = false \&\& a.scrapedOK#
