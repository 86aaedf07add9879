package bytesize

import "testing"

// TestParseAndFormat: whole numbers with a binary unit (or none: bytes) are read, anything else
// (fractions, signs, spaces, unknown units, overflow) refused. Mutant: bytesize-sign-accepted
// (Parse skipping its digit check: "-1MB" is a size).
func TestParseAndFormat(t *testing.T) {
	good := map[string]int64{"50KB": 50 << 10, "500kb": 500 << 10, "1MB": 1 << 20, "100MB": 100 << 20, "2GB": 2 << 30,
		"512B": 512, "4096": 4096, "1MiB": 1 << 20, "3K": 3 << 10, "1TB": 1 << 40, "0": 0}
	for in, want := range good {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "KB", "1.5MB", "-1MB", "+1MB", "1 MB", "1XB", "MB1", "99999999999999999999", "9999999999TB", "1e3"} {
		if got, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", in, got)
		}
	}
	for n, want := range map[int64]string{500 << 10: "500KB", 1 << 20: "1MB", 1536 << 10: "1.5MB", 12: "12B"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
