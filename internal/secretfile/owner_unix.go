//go:build unix

package secretfile

import (
	"os"
	"syscall"
)

// owner is a file's owner's user id (ok false where the system has none).
func owner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
