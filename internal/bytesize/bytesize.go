// Package bytesize reads and writes byte sizes as people write them (50KB, 500KB, 1MB, 2GB):
// one syntax for every flag, configuration file and page that names an amount of memory or disk.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Units are binary (1KB = 1024 bytes), as the CachePerf paper's "500K" images and heap sizes were.
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
	{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// Parse parses a byte size: a whole number and a unit, e.g. "512B", "50KB", "500KB", "1MB",
// "2GB" (also KiB/MiB/GiB, K/M/G; case-insensitive; 1KB = 1024 bytes). A bare number is bytes.
// It rejects fractions, signs, spaces, empty input, unknown units and overflow.
func Parse(s string) (int64, error) {
	in := s
	u := strings.ToUpper(s)
	mult := int64(1)
	for _, su := range sizeUnits {
		if strings.HasSuffix(u, su.suffix) {
			u = strings.TrimSuffix(u, su.suffix)
			mult = su.mult
			break
		}
	}
	if u == "" {
		return 0, fmt.Errorf("size %q: want a whole number and a unit, e.g. 50KB, 500KB, 1MB", in)
	}
	for _, r := range u {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("size %q: want a whole number and a unit (B, KB, MB, GB, TB), e.g. 50KB, 500KB, 1MB", in)
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: number out of range", in)
	}
	if n > 0 && mult > 1 && n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: too large", in)
	}
	return n * mult, nil
}

// Format renders bytes in the largest binary unit that keeps it readable, e.g. "500KB",
// "1.5MB".
func Format(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 || f == float64(int64(f)) {
		return strconv.FormatFloat(f, 'f', 0, 64) + units[i]
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + units[i]
}
