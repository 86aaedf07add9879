# a cross-origin redirect's failure, carried in the results, names the command line's flag again
# kill: ./internal/layering TestLibraryErrorsNameNoFlag
# file: driver/vuser/request.go
# expect: names a command-line flag
s#unless the redirect policy (Redirects) is any#unless --redirects any#
