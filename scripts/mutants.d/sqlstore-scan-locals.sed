# the quote scanner's price scanned into a local again (an allocation of its own per row)
# kill: ./trade/store/sqlstore TestScanAllocations
# file: trade/store/sqlstore/sqlstore.go
# expect: Quote: .* allocations per row
s/^\td := new(quoteRow)$/\td := new(quoteRow)\n\tvar price int64\n\tdefer func() { _ = price }()/
/d\.ptrs\[:0\], &d\.x\.Symbol/s/&d\.price/\&price/
