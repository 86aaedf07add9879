# scripts/tour: a line ending in a backslash is not joined to the next (each half runs alone)
# kill: ./internal/doccheck TestTourRunsTheBlockAsWritten
# file: scripts/tour
s#cont = line; next }#}#
