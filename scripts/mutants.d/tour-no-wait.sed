# scripts/tour: a background command is not waited for until it listens (the next command races it)
# kill: ./internal/doccheck TestTourRunsTheBlockAsWritten
# file: scripts/tour
s#^  for addr in "\$@"; do$#  for addr in; do#
