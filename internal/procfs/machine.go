package procfs

import (
	"bytes"
	"strings"
)

// MemTotal is the machine's memory in bytes (/proc/meminfo's MemTotal, which the file gives in
// KiB); 0 when unreadable.
func (fs FS) MemTotal() int64 {
	var total int64
	_ = read(fs.path("meminfo"), func(b []byte) error {
		total = meminfoKB(b, "MemTotal") << 10
		return nil
	})
	return total
}

// meminfoKB is the number of a /proc/meminfo line ("MemTotal:  24683624 kB"), 0 if absent.
func meminfoKB(b []byte, key string) int64 {
	for line := range bytes.Lines(b) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && string(k) == key {
			return firstInt(v)
		}
	}
	return 0
}

// CPUModel is the first processor's model from /proc/cpuinfo; "" when unreadable.
func (fs FS) CPUModel() string {
	var model string
	_ = read(fs.path("cpuinfo"), func(b []byte) error {
		model = cpuModel(b)
		return nil
	})
	return model
}

// cpuModel is the first processor's model: "model name" on x86, "Model"/"Hardware"/"cpu model"
// on ARM and others; with its "CPU implementer"/"CPU part" when that is all there is.
func cpuModel(b []byte) string {
	var fallback string
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Model", "cpu model", "Hardware":
			if v != "" {
				return v
			}
		case "CPU part":
			if fallback == "" {
				fallback = "CPU part " + v
			}
		}
	}
	return fallback
}

// Kernel is what `uname -sr` prints ("Linux 6.1.0-18-amd64"), from
// /proc/sys/kernel/ostype and osrelease; false when either is unreadable.
func (fs FS) Kernel() (string, bool) {
	var typ, rel string
	err1 := read(fs.path("sys/kernel/ostype"), func(b []byte) error { typ = string(bytes.TrimSpace(b)); return nil })
	err2 := read(fs.path("sys/kernel/osrelease"), func(b []byte) error { rel = string(bytes.TrimSpace(b)); return nil })
	if err1 != nil || err2 != nil {
		return "", false
	}
	return typ + " " + rel, true
}
