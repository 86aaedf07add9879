# fleet.Dial leaves the token file it generated when its embedded broker does not start
# kill: ./driver/fleet TestDialNamesTheFieldAndLeavesNothing
# file: driver/fleet/dial.go
# expect: left tradebench-nats-token behind
s/^\t\tif created {$/\t\tif false \&\& created {/
