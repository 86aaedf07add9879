# a SQLite database that is not there passes the check: serve, reset, audit would create an empty file
# kill: ./internal/dsn TestNeed
# file: internal/dsn/dsn.go
# expect: want no such database
s#if _, err := os.Stat(path); err != nil {#if _, err := os.Stat(path); err != nil \&\& false {#
