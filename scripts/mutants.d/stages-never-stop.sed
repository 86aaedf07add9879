# a load profile's users are stopped only at its end, never when it goes down
# kill: ./driver/load TestStagedRunFollowsTheProfile
# file: driver/load/stages.go
# expect: users made
s#^\t\tfor len(running) > n {#\t\tfor n == 0 \&\& len(running) > n {#
