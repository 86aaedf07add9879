package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CheckWritable reports whether results can be written to path, before a run spends minutes
// producing them: its directory must exist and take a new file, and path must not be a
// directory. It leaves nothing behind.
func CheckWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory; give a file name (e.g. %s)", path, filepath.Join(path, "results.json"))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("cannot write %s: the directory %s does not exist", path, dir)
		}
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	f, err := os.CreateTemp(dir, ".results-check-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
