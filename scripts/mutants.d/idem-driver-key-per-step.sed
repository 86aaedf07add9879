# the driver's keys made of the user's id: a capacity search's next step numbers its users from 0 again, so its buys repeat the last step's keys and the server answers them with the old orders (or 409)
# kill: ./driver/vuser TestIdempotencyKeyPerUnsafeRequest
# file: driver/vuser/request.go
# expect: empty or seen before
s#^\theader = strconv.AppendUint(header, u.keyID, 10)$#\theader = strconv.AppendInt(header, int64(u.id), 10)#
