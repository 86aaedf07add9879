# each leg of a load profile in stages starts from 0 users, not from the previous leg's target
# kill: ./driver/load TestStagesUsersAt
# file: driver/load/stages.go
# expect: users, want
s#^\t\tfrom = s.Target$#\t\tfrom = 0#
