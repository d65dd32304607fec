package sqlite

import (
	"context"
	"path/filepath"
)

// MovePatchFiles makes the pairs' patch files found under the folder from
// be found under the folder to: a restore into another data folder moves
// the files, and the patches keep their files' whole paths. from and to
// are the old and the new data folders' patch roots (pair.PatchRootIn).
// The transcript is left as it is: it records where each file was when
// its entry was written.
func (db *DB) MovePatchFiles(ctx context.Context, from, to string) error {
	sep := string(filepath.Separator)
	from, to = filepath.Clean(from)+sep, filepath.Clean(to)+sep
	if from == to {
		return nil
	}
	return db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE pair_patches SET path = ?2 || substr(path, length(?1) + 1) WHERE substr(path, 1, length(?1)) = ?1`, from, to)
		return err
	})
}
