# the function-length counter leaves out the closing brace's line: a 101-line function passes a 100-line bound
# kill: ./internal/tools/funclen TestScan
# file: internal/tools/funclen/main.go
# expect: over 101 lines
s#if n := end - start + 1; n > maxFunc {#if n := end - start; n > maxFunc {#
