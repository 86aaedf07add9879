# every form of a page carries the same key: buying a second symbol from the page answers the first buy
# kill: ./trade/web TestPagesSQLite
# file: trade/web/cells.go
# expect: one each, distinct
s#^\t\th.v.keys++$##
