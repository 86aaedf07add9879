# fleet: a Start naming another run starts the assigned share
# kill: ./driver/fleet TestAgentStartMustNameItsRun
# file: driver/fleet/agent.go
# expect: start naming another run
s#if a.run == "" || a.run != st.Run {#if a.run == "" {#
