# cacheperf sweep --quick replaces a key range given explicitly with its preset
# kill: ./bench/cacheperfjob TestSetQuick
# file: bench/cacheperfjob/quick.go
# expect: given settings did not win
s#set("Keys", func() { c.Keys = slices.Clone(QuickKeys) })#c.Keys = slices.Clone(QuickKeys)#
