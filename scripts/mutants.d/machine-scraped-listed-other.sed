# machine: a loopback --sut-metrics server's process, found by its scraped port, is read from /proc although its CPU is counted own through the scrape: counted twice
# kill: ./driver/machine TestScrapedServerIsNotAmongOthers
# file: driver/machine/machine.go
# expect: the scraped server is among the busiest others|counted twice
s#scraped\[pid\] = a.scrapedOK#scraped[pid] = false \&\& a.scrapedOK#
