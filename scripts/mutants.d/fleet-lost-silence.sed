# fleet: a silent agent not counted lost until the results deadline (slow: ~45 s)
# kill: ./driver/fleet TestFleetAgentKilled
# file: driver/fleet/controller.go
# expect: notes do not say a1 was lost for its silence
s#case connected && now.Sub(m.lastSeen) > LostAfter:#case connected \&\& false \&\& now.Sub(m.lastSeen) > LostAfter:#
