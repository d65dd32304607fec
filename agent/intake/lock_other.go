//go:build !unix

package intake

import "os"

// lockFile does nothing where flock is missing: appends of one line are
// atomic on local file systems, and a hook racing a drain is rare.
func lockFile(f *os.File) error { return nil }
