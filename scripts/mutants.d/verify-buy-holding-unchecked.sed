# business.buy no longer checks the holding the buy created: a target recording holdings at the wrong price is certified on business.buy
# kill: ./bench/verify TestBrokenTargetsFailTheirCheck
# file: bench/verify/level_business.go
# expect: want exactly \[business.buy\]
s#^\tif len(added) != 1 || added\[0\]\.Symbol != o\.Symbol || added\[0\]\.Quantity != o\.Quantity || added\[0\]\.PurchasePrice != o\.Price {#\tif false {#
