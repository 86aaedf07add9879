// Command crop cuts rows [y0, y1) out of a PNG (crop IN OUT Y0 Y1): the screenshot scripts use it
// to keep one section of a page, without an image library outside the standard one. Y1 "trim"
// ends the cut 40 rows below the last row that is not plain white: a page shot in a window taller
// than itself keeps the page and loses the empty window below it.
package main

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"strconv"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "crop:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("usage: crop IN OUT Y0 Y1|trim")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	im, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	b := im.Bounds()
	y0, err := strconv.Atoi(args[2])
	if err != nil {
		return fmt.Errorf("Y0 %q: not a row number", args[2])
	}
	var y1 int
	if args[3] == "trim" {
		y1 = min(lastInkRow(im)+1+40, b.Max.Y)
	} else if y1, err = strconv.Atoi(args[3]); err != nil {
		return fmt.Errorf("Y1 %q: not a row number or \"trim\"", args[3])
	}
	if y0 < b.Min.Y || y1 > b.Max.Y || y0 >= y1 {
		return fmt.Errorf("rows [%d, %d) are not inside the image's [%d, %d)", y0, y1, b.Min.Y, b.Max.Y)
	}
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), y1-y0))
	draw.Draw(out, out.Bounds(), im, image.Pt(b.Min.X, y0), draw.Src)
	w, err := os.Create(args[1])
	if err != nil {
		return err
	}
	// The pictures are committed: the smallest file is worth the encoder's extra time.
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, out); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// lastInkRow is the last row holding a pixel that is not plain white (the page's background).
func lastInkRow(im image.Image) int {
	b := im.Bounds()
	for y := b.Max.Y - 1; y >= b.Min.Y; y-- {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := im.At(x, y).RGBA()
			if r != 0xffff || g != 0xffff || bl != 0xffff {
				return y
			}
		}
	}
	return b.Min.Y
}
