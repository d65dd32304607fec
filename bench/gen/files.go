package gen

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"sync"
	"time"
)

// newFile makes a small screenshot: a real PNG or JPEG of a few hundred
// bytes, so that the store sniffs, stores and serves it like any other.
func newFile(r *rng, is *issue, n int) *file {
	name := fmt.Sprintf("screenshot-%s-%d", time.UnixMilli(is.created).UTC().Format("2006-01-02-1504"), n+1)
	v := images()[r.intn(len(images()))]
	if v.mime == "image/jpeg" {
		return &file{name: name + ".jpg", mime: v.mime, data: v.data}
	}
	return &file{name: name + ".png", mime: v.mime, data: v.data}
}

type imageVariant struct {
	mime string
	data []byte
}

// images are the pictures files are made of. Encoding one per file would
// cost most of a large desk's generation time, so a fixed set is drawn
// once from its own seed and files pick from it.
var images = sync.OnceValue(func() []imageVariant {
	r := newRNG(0x696d67)
	out := make([]imageVariant, 96)
	for i := range out {
		img := tinyImage(r)
		var b bytes.Buffer
		if i%3 == 0 {
			if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 60}); err != nil {
				panic(err) // encoding an in-memory image cannot fail
			}
			out[i] = imageVariant{"image/jpeg", b.Bytes()}
			continue
		}
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&b, img); err != nil {
			panic(err)
		}
		out[i] = imageVariant{"image/png", b.Bytes()}
	}
	return out
})

// tinyImage draws a 24×16 picture of a horizon: sky, a hill line and a
// coloured spot where the bug is.
func tinyImage(r *rng) image.Image {
	const w, h = 24, 16
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	sky := color.RGBA{uint8(r.between(60, 140)), uint8(r.between(120, 200)), uint8(r.between(180, 255)), 255}
	ground := color.RGBA{uint8(r.between(40, 120)), uint8(r.between(80, 160)), uint8(r.between(20, 80)), 255}
	spot := color.RGBA{255, uint8(r.between(0, 80)), uint8(r.between(0, 80)), 255}
	base := r.between(6, 11)
	sx, sy := r.intn(w-3), r.intn(h-3)
	for x := 0; x < w; x++ {
		hill := base + (x*x+r.intn(3))%3 - 1
		for y := 0; y < h; y++ {
			c := sky
			if y >= hill {
				c = ground
			}
			if x >= sx && x < sx+3 && y >= sy && y < sy+3 {
				c = spot
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}
