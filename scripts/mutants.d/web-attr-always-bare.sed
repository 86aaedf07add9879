# every attribute value written bare, unquoted: a value with a space, a quote or a '>' ends early or breaks the tag
# kill: ./trade/web TestAttrValueParsesBack
# file: trade/web/cells.go
# expect: parsed as attributes
s#^\tif bare {$#\tif true {#
