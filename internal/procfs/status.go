package procfs

import (
	"bytes"
	"os"
	"strconv"
)

// Status is the part of a /proc/PID/status file tradebench reads.
type Status struct {
	RSS     int64 // VmRSS in bytes: resident now (0 for a kernel thread or a zombie: no memory lines)
	PeakRSS int64 // VmHWM in bytes: the resident high-water mark, since the start or ResetPeakRSS
	UID     int   // the real user id (Uid's first field); -1 when the file has none
}

// Status reads a process's status file.
func (fs FS) Status(pid int) (Status, error) { return fs.status(fs.pidPath(pid, "status")) }

// SelfStatus reads this process's status file (/proc/self/status).
func (fs FS) SelfStatus() (Status, error) { return fs.status(fs.path("self/status")) }

func (fs FS) status(path string) (Status, error) {
	var s Status
	err := read(path, func(b []byte) error {
		s = ParseStatus(b)
		return nil
	})
	return s, err
}

// ParseStatus reads the lines of a status file tradebench uses ("VmRSS:   1024 kB", "Uid: 1000
// 1000 1000 1000"); a line missing or unreadable leaves its field 0 (UID -1).
func ParseStatus(b []byte) Status {
	s := Status{UID: -1}
	for line := range bytes.Lines(b) {
		key, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch string(key) {
		case "VmRSS":
			s.RSS = firstInt(rest) << 10
		case "VmHWM":
			s.PeakRSS = firstInt(rest) << 10
		case "Uid":
			var fields [1][]byte
			if f := fieldsInto(fields[:0], rest); len(f) == 1 {
				if uid, err := strconv.Atoi(string(f[0])); err == nil {
					s.UID = uid
				}
			}
		}
	}
	return s
}

// firstInt is the first field of b as a number, 0 if it is none.
func firstInt(b []byte) int64 {
	var fields [1][]byte
	f := fieldsInto(fields[:0], b)
	if len(f) == 0 {
		return 0
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// ResetPeakRSS resets this process's VmHWM to its current RSS ("5" to /proc/self/clear_refs);
// an error when the kernel does not allow it.
func (fs FS) ResetPeakRSS() error {
	return os.WriteFile(fs.path("self/clear_refs"), []byte("5"), 0)
}
