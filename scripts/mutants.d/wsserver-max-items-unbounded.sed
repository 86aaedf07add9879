# wstest serve accepts --max-items above 9000: no gRPC list that long could arrive
# kill: ./wstest/wsserver TestStartRefusesLimitsOutOfBounds
# file: wstest/data.go
# expect: want a setting error of MaxItems
s#n != 0 && (n < 1 || n > MaxMaxItems)#n != 0 \&\& n < 1#
