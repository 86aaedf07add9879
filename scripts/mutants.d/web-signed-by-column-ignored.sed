# the quotes page's change cell loses its loss colour (signedCell's byColumn case for a negative sign skipped)
# kill: ./trade/web TestCellsMatchFormatters
# file: trade/web/cells.go
# expect: byColumn:true
s#^	case sc.byColumn \&\& sc.sign < 0:$#	case false:#
