# machine: a loopback scrape that failed at the window's end still hides its process from /proc: the named server's CPU moves into the anonymous "ended within the window" bucket
# kill: ./driver/machine TestScrapeFailingAtTheEnd
# file: driver/machine/machine.go
# expect: is not counted from /proc
s#scraped\[pid\] = a.scrapedOK\[i\] \&\& b.scrapedOK\[i\] \&\& !own\[pid\]#scraped[pid] = a.scrapedOK[i] \&\& !own[pid]#
