# the account page as it was: class="n" on each number cell of the orders (40 bytes a row) and the long footer: five orders take two writes
# kill: ./trade/server TestPagesFitOneWrite
# file: trade/web/pages_templ.go
# expect: over net/http's 4096-byte write buffer
s#Buffer, \(97\|100\|101\|102\), "</td><td>")#Buffer, \1, "</td><td class=\\"n\\">")#
s#Configuration</a> · tradebench</footer></body></html>")#Configuration</a> · tradebench — a StockTrader / DayTrader compatible brokerage benchmark</footer></body></html>")#
