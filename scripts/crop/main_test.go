package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePNG writes a white w×h image with one black pixel in row ink.
func writePNG(t *testing.T, path string, w, h, ink int) {
	t.Helper()
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			im.Set(x, y, color.White)
		}
	}
	im.Set(w/2, ink, color.Black)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, im); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func height(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Height
}

// "trim" keeps the page and 40 rows of margin below its last inked row, and never more than the
// image. (Mutant: lastInkRow returning the image's last row — the trimmed image is 300 rows, not 141.)
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.png"), filepath.Join(dir, "out.png")
	writePNG(t, in, 20, 300, 100)
	if err := run([]string{in, out, "0", "trim"}); err != nil {
		t.Fatal(err)
	}
	if h := height(t, out); h != 141 {
		t.Errorf("trimmed height %d, want 141 (rows 0–100 and 40 of margin)", h)
	}
	writePNG(t, in, 20, 120, 100)
	if err := run([]string{in, out, "10", "trim"}); err != nil {
		t.Fatal(err)
	}
	if h := height(t, out); h != 110 {
		t.Errorf("trimmed height %d, want 110 (the margin cut at the image's end)", h)
	}
}

// Rows outside the image, or words where rows belong, are refused with an error naming them, not a
// panic. (Mutant: the bounds check removed — draw panics or the output is wrong.)
func TestBadRows(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.png")
	writePNG(t, in, 10, 50, 5)
	for _, c := range [][2]string{{"0", "51"}, {"20", "10"}, {"x", "10"}, {"0", "end"}} {
		err := run([]string{in, filepath.Join(dir, "o.png"), c[0], c[1]})
		if err == nil || !(strings.Contains(err.Error(), c[0]) || strings.Contains(err.Error(), c[1])) {
			t.Errorf("rows %v: error %v, want one naming them", c, err)
		}
	}
}
