# the driver's kept-body error names the command line's flag again instead of the setting
# kill: ./internal/layering TestLibraryErrorsNameNoFlag
# file: internal/httpc/body.go
# expect: names a command-line flag
s#keep at once; the BodyBudget setting raises it#keep at once; --body-budget raises it#
