# the store maps the database file again: pages re-parsed on every fetch, the map dropped after every write
# kill: ./trade/store/sqlite TestPragmas
# file: trade/store/sqlite/sqlite.go
# expect: PRAGMA mmap_size = 268435456, want 0
s#&_pragma=temp_store(MEMORY)"$#\&_pragma=mmap_size(268435456)\&_pragma=temp_store(MEMORY)"#
