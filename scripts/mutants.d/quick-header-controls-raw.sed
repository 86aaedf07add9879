# quick mode sends a vertical tab or DEL in a header value raw (only CR and LF refused)
# kill: ./driver TestQuickHeadersChecked
# file: driver/quick.go
# expect: control character
s#return r < ' ' \&\& r != '\\t' || r == 0x7f })#return false })#
