package blobstore

import "context"

// generated is one item's blob, made ahead of the insert that consumes it.
type generated struct {
	id  int64
	buf []byte
}

// generator makes blobs on its own goroutine so generation overlaps the database writes; a few
// recycled buffers bound its memory to (depth+2) blobs.
type generator struct {
	out    chan *generated
	free   chan *generated
	cancel context.CancelFunc
	done   chan struct{}
}

const genDepth = 4

func startGenerator(ctx context.Context, cfg LoadConfig) *generator {
	ctx, cancel := context.WithCancel(ctx)
	g := &generator{out: make(chan *generated, genDepth), free: make(chan *generated, genDepth+2), cancel: cancel, done: make(chan struct{})}
	for i := 0; i < genDepth+2; i++ {
		g.free <- &generated{buf: make([]byte, cfg.Size)}
	}
	go func() {
		defer close(g.done)
		defer close(g.out)
		for id := int64(1); id <= int64(cfg.Items); id++ {
			var b *generated
			select {
			case b = <-g.free:
			case <-ctx.Done():
				return
			}
			b.id = id
			FillBlob(b.buf, cfg.Seed, id)
			select {
			case g.out <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	return g
}

func (g *generator) next() (*generated, bool) {
	b, ok := <-g.out
	return b, ok
}

func (g *generator) recycle(b *generated) {
	select {
	case g.free <- b:
	default:
	}
}

func (g *generator) stop() {
	g.cancel()
	<-g.done
}
