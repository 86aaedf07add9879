# scripts/tour: the background commands are not stopped at the end (a server left running)
# kill: ./internal/doccheck TestTourRunsTheBlockAsWritten
# file: scripts/tour
/^      kill -TERM -- "-\$pid" 2>\/dev\/null$/,/^      wait "\$pid" 2>\/dev\/null$/d
