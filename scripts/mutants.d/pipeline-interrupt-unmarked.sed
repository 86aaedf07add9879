# an interrupted run is judged as if it had ended: its results lose the verdict "interrupted"
# kill: ./cmd/tradebench TestInterruptedSearchKeepsItsSteps
# file: driver/pipeline.go
# expect: want interrupted
s#^\t\tmarkInterrupted(res, cfg.rules())$#\t\t_ = cfg#
