# the account page's order price formatted into a string again (three allocations per row)
# kill: ./trade/web TestRowsAllocateNothing
# file: trade/web/pages_templ.go
# expect: rows allocate
s/moneyText(o\.Price)\.Render(ctx, templ_7745c5c3_Buffer)/escText(FormatMoney(o.Price)).Render(ctx, templ_7745c5c3_Buffer)/
