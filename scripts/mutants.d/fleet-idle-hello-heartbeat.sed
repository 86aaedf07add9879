# fleet: an idle Hello (or one for another run) refreshes a member's heartbeat
# kill: ./driver/fleet TestIdleHelloDoesNotRevive
# file: driver/fleet/controller.go
# expect: refreshed the member's heartbeat
s#m != nil \&\& (h.Run == r.id || m.state == report.AgentDone)#m != nil#
