# live.js updates the quotes page's price in the open column (cells by position, one off)
# kill: ./trade/server TestQuotesPageLiveInBrowser
# file: trade/web/static/live.js
# expect: price of s:1
s#v = cs\[2\], r = cs\[3\], p = cs\[5\], c = cs\[6\];#v = cs[2], r = cs[3], p = cs[4], c = cs[6];#
