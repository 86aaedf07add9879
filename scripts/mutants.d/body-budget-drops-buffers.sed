# a released big body buffer is dropped to the garbage collector, uncounted, instead of kept charged for the next body
# kill: ./driver/vuser TestBodyBudgetIsWhatBodiesCost
# file: internal/httpc/body.go
# expect: peak RSS
s#^\tif cap(\*buf) <= maxPooled || reserved < charge(cap(\*buf)) {#\tif true {#
