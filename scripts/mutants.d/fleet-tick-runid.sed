# fleet: a tick's run id not compared
# kill: ./driver/fleet TestTickOfAnotherRunIgnored
# file: driver/fleet/controller.go
s#if run != r.id || m == nil {#if m == nil {#
