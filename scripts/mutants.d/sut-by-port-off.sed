# driver: a drive naming no system under test does not look for the process listening on its loopback target's port: the server counts as other processes'
# kill: ./driver TestDriveCountsTheServerFoundByPort|TestAgentCountsTheServerFoundByPort
# file: driver/selfserve.go
# expect: not among the own processes|sut section|the agent.s machine
s#if len(resources) > 0 || target == "" {#if true {#
