# the server's missing-service-token error names the command line's flag again instead of the setting
# kill: ./internal/layering TestLibraryErrorsNameNoFlag
# file: trade/server/token.go
# expect: names a command-line flag
s#give the token's file (the host#give --service-token-file PATH (the host#
