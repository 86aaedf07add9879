// Command crop cuts rows [y0, y1) out of a PNG (crop IN OUT Y0 Y1): the screenshot scripts use it
// to keep one section of a page, without an image library outside the standard one.
package main

import (
	"image"
	"image/draw"
	"image/png"
	"os"
	"strconv"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	im, err := png.Decode(f)
	if err != nil {
		panic(err)
	}
	y0, _ := strconv.Atoi(os.Args[3])
	y1, _ := strconv.Atoi(os.Args[4])
	b := im.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), y1-y0))
	draw.Draw(out, out.Bounds(), im, image.Pt(b.Min.X, y0), draw.Src)
	w, err := os.Create(os.Args[2])
	if err != nil {
		panic(err)
	}
	if err := png.Encode(w, out); err != nil {
		panic(err)
	}
	w.Close()
}
