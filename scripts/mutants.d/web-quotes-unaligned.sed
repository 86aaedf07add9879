# the quotes table's number columns lose their right alignment (the class per cell gone, no column rule)
# kill: ./trade/server TestQuotesPageLiveInBrowser
# file: trade/web/static/style.css
# expect: price column right-aligned
s#^\.quotes td:nth-child(n+3):nth-child(-n+7),\.quotes th:nth-child(n+3):nth-child(-n+7),##
