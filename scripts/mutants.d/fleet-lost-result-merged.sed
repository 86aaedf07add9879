# fleet: a result from an agent already counted lost is merged
# kill: ./driver/fleet TestLostAgentsLateResultNotMerged
# file: driver/fleet/controller.go
# expect: want still lost
/^func (r \*run) onResult/,/^}/s#if m == nil || m.state != "" {#if m == nil || m.state == report.AgentDone {#
