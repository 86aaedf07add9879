# disclosure: MemTotal's kB taken as bytes
# kill: ./driver/disclose TestMemoryIsMemTotalInBytes
# file: internal/procfs/machine.go
s#meminfoKB(b, "MemTotal") << 10#meminfoKB(b, "MemTotal")#
