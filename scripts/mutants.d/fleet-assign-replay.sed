# fleet: a replayed Assign of a run the agent was already given accepted
# kill: ./driver/fleet TestAgentRefusesReplayedAssign
# file: driver/fleet/agent.go
# expect: want refused
s#if a.run == "" \&\& slices.Contains(a.seen, as.Run) {#if false \&\& a.run == "" \&\& slices.Contains(a.seen, as.Run) {#
