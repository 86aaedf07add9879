# run: a SQLite database in a missing directory is not refused before the working directory is made
# kill: ./bench/tradejob TestRunChecksDBFirst
# file: bench/tradejob/tradejob.go
s#^\tif drv == dsn.SQLite {$#\tif false \&\& drv == dsn.SQLite {#
