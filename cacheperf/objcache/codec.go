package objcache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
)

// The encoded item (disk tier files, remote cache values): a fixed header, then name, content
// type and blob. The blob length is in the header, so a reader can check it (and reserve memory
// for it) before reading it.
//
//	magic "CPI1" | id int64 | expires unix-nano int64 | name len u16 | ctype len u16 | blob len u64
const (
	codecMagic  = "CPI1"
	headerBytes = 4 + 8 + 8 + 2 + 2 + 8
)

func encodedLen(it *blobstore.Item) int {
	return headerBytes + len(it.Name) + len(it.ContentType) + len(it.Data)
}

func appendHeader(b []byte, it *blobstore.Item, expires time.Time) []byte {
	b = append(b, codecMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(it.ID))
	b = binary.LittleEndian.AppendUint64(b, uint64(expires.UnixNano()))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(it.Name)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(it.ContentType)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(it.Data)))
	b = append(b, it.Name...)
	return append(b, it.ContentType...)
}

func encodeItem(w io.Writer, it *blobstore.Item, expires time.Time) error {
	if len(it.Name) > 0xFFFF || len(it.ContentType) > 0xFFFF {
		return errors.New("encode item: name or content type too long")
	}
	if _, err := w.Write(appendHeader(nil, it, expires)); err != nil {
		return err
	}
	_, err := w.Write(it.Data)
	return err
}

// decodeItem reads one encoded item. maxBlob > 0 refuses a blob longer than that before
// allocating it.
func decodeItem(r io.Reader, maxBlob int64) (*blobstore.Item, time.Time, error) {
	br := bufio.NewReaderSize(r, 512)
	var h [headerBytes]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return nil, time.Time{}, fmt.Errorf("decode item: %w", err)
	}
	if string(h[:4]) != codecMagic {
		return nil, time.Time{}, errors.New("decode item: bad magic")
	}
	id := int64(binary.LittleEndian.Uint64(h[4:]))
	exp := time.Unix(0, int64(binary.LittleEndian.Uint64(h[12:])))
	nl := int(binary.LittleEndian.Uint16(h[20:]))
	cl := int(binary.LittleEndian.Uint16(h[22:]))
	bl := binary.LittleEndian.Uint64(h[24:])
	if maxBlob > 0 && bl > uint64(maxBlob) {
		return nil, time.Time{}, fmt.Errorf("decode item: blob of %d bytes, expected at most %d", bl, maxBlob)
	}
	strs := make([]byte, nl+cl)
	if _, err := io.ReadFull(br, strs); err != nil {
		return nil, time.Time{}, fmt.Errorf("decode item: %w", err)
	}
	data := make([]byte, bl)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, time.Time{}, fmt.Errorf("decode item: %w", err)
	}
	it := &blobstore.Item{Meta: blobstore.Meta{ID: id, Name: string(strs[:nl]), ContentType: string(strs[nl:]), Size: int64(bl)}, Data: data}
	return it, exp, nil
}
