# the load shape's start instant is not passed to the engine: the run starts at once
# kill: ./driver TestPhasesStartAt
# file: driver/phases.go
# expect: before its start instant
s#, StartAt: p.StartAt, Stages: p.Stages}#, Stages: p.Stages}#
