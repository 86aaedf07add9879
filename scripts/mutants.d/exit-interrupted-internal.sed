# the exit table without its 130 row: an interrupted run exits 1 (internal)
# kill: ./cmd/tradebench TestInterruptedDriveKeepsWhatRan|TestInterruptedSearchKeepsItsSteps
# file: cmd/tradebench/cli.go
# expect: want 130
s#^\t\treturn exitInterrupted$#\t\treturn exitInternal#
