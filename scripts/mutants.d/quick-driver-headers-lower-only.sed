# quick mode refuses Host, Content-Length… only in lower case: -H "HOST: x" overrides what the driver writes
# kill: ./driver TestQuickHeadersChecked
# file: driver/quick.go
# expect: written by the driver
s#headersNotSet\[strings.ToLower(name)\]#headersNotSet[name]#
