package code

import (
	"encoding/binary"
	"errors"
	"io"

	"desk"
)

// Objects travel in frames: the type (1 byte: 1 blob, 2 tree, 3 change),
// the id (32 bytes), the length (4 bytes, big endian) and the bytes.
const frameHeader = 1 + 32 + 4

// MaxObject is the largest object a request may carry.
const MaxObject = 64 << 20

// AppendFrame appends an object's frame to b.
func AppendFrame(b []byte, o Object) []byte {
	b = append(b, byte(o.Type))
	b = append(b, o.ID[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(o.Data)))
	return append(b, o.Data...)
}

// WriteFrame writes an object's frame.
func WriteFrame(w io.Writer, o Object) error {
	var hdr [frameHeader]byte
	hdr[0] = byte(o.Type)
	copy(hdr[1:33], o.ID[:])
	binary.BigEndian.PutUint32(hdr[33:], uint32(len(o.Data)))
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := w.Write(o.Data)
	return err
}

// FrameSize is the length of an object's frame.
func FrameSize(o Object) int { return frameHeader + len(o.Data) }

// ReadFrames reads every frame of r. It does not check ids (see CheckAll);
// it refuses a frame cut short, an unknown type and an object over
// MaxObject.
func ReadFrames(r io.Reader) ([]Object, error) {
	var out []Object
	err := EachFrame(r, func(o Object) error {
		out = append(out, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachFrame calls fn with each frame of r as it is read, so that a reader
// works on the first objects while the next ones arrive. Like ReadFrames
// it checks no id, and refuses a frame cut short, an unknown type and an
// object over MaxObject; an error of fn stops it.
func EachFrame(r io.Reader, fn func(Object) error) error {
	var hdr [frameHeader]byte
	for n := 0; ; n++ {
		_, err := io.ReadFull(r, hdr[:])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return frameError(err, n)
		}
		o := Object{Type: Type(hdr[0])}
		if !o.Type.Valid() {
			return desk.Errorf(desk.Invalid, "frame %d: type %d is not 1 (blob), 2 (tree) or 3 (change)", n+1, hdr[0])
		}
		copy(o.ID[:], hdr[1:33])
		size := binary.BigEndian.Uint32(hdr[33:])
		if size > MaxObject {
			return desk.Errorf(desk.Invalid, "frame %d: an object of %d bytes is over the limit of %d MiB", n+1, size, MaxObject>>20)
		}
		o.Data = make([]byte, size)
		if _, err := io.ReadFull(r, o.Data); err != nil {
			return frameError(err, n)
		}
		if err := fn(o); err != nil {
			return err
		}
	}
}

func frameError(err error, n int) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return desk.Errorf(desk.Invalid, "frame %d is cut short", n+1)
	}
	return err
}
