package sqlite

import (
	"context"

	"desk"
)

// SuggestGroups proposes merges of likely duplicates (titles that say the
// same, the same place in the game) and groups of related open work (one
// area, one subject) to put under a parent. It changes nothing.
func (db *DB) SuggestGroups(ctx context.Context, slug string, limit int) ([]desk.Group, error) {
	var rows []*desk.Issue
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		heads, err := db.index.snapshot(ctx, tx, p.id)
		if err != nil {
			return err
		}
		for _, r := range heads {
			if r.mergedID == 0 && !desk.IsDone(r.status()) {
				is := r.issue()
				rows = append(rows, &is)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return desk.SuggestGroups(rows, limit), nil
}
