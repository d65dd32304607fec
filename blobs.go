package desk

import (
	"context"
	"io"
)

// Blobs is an object store: bytes under a key, written whole, read whole
// or streamed, deleted. Attachments are kept in one (the data folder on
// the embedded desk, S3 on the team server), and the code's objects will
// be too. Keys are slash-separated paths of letters, digits and ".-_";
// a missing key is a NotFound *Error.
type Blobs interface {
	// Put stores data under key, replacing what was there; the bytes are
	// durable when it returns.
	Put(ctx context.Context, key string, data []byte) error
	// Get returns the bytes under key.
	Get(ctx context.Context, key string) ([]byte, error)
	// Open returns the bytes under key for streaming, with their size.
	Open(ctx context.Context, key string) (io.ReadSeekCloser, int64, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}
