package sqlite

import "context"

// OpenRead opens the desk in folder dir for a short-lived reader, such as a
// hook that runs before every prompt: one read connection and a small
// cache, the file mapped rather than copied (see Options.OneShot). Like
// every Open of a desk whose schema is current, it opens the write
// connection only if a write ever comes: each connection SQLite opens
// parses the whole schema, a millisecond here.
//
// It never creates a desk: a folder without one gives ErrNoDesk.
func OpenRead(ctx context.Context, dir string, cacheKiB int) (*DB, error) {
	if cacheKiB <= 0 {
		cacheKiB = 1024
	}
	return Open(ctx, dir, Options{NoCreate: true, Readers: 1, CacheKiB: cacheKiB, OneShot: true})
}
