# the CSP allows no stylesheet: the pages render unstyled in a browser
# kill: ./trade/server TestQuotesPageLiveInBrowser
# file: trade/web/web.go
# expect: stylesheet applied
s/style-src 'self'/style-src 'none'/
