# fleet: the start lead fixed at startLead, however slowly the agents answered the assignment
# kill: ./driver/fleet TestLeadGrowsWithASlowBroker
# file: driver/fleet/controller.go
# expect: want
s#return max(startLead, leadPerAssign\*assigned)#return startLead#
