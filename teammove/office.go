package teammove

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"desk/office"
)

// officeDocs are the office's documents, which the embedded desk keeps as
// files of its data folder and the team store in office_docs.
var officeDocs = []office.Doc{office.DocLayout, office.DocSeats}

// copyOffice copies the office's documents from one backend to the other,
// each one only when it differs, and returns how many it wrote. With
// write set, a document goes through it rather than to's Change.
func copyOffice(ctx context.Context, from, to office.Backend, write func(doc office.Doc, b []byte, revision int64) error) (int, error) {
	if from == nil || to == nil {
		return 0, nil
	}
	n := 0
	for _, doc := range officeDocs {
		b, err := from.Read(ctx, doc)
		if err != nil {
			return n, fmt.Errorf("the office's %s: %w", doc, err)
		}
		if b == nil {
			continue
		}
		cur, err := to.Read(ctx, doc)
		if err != nil {
			return n, fmt.Errorf("the office's %s in %s: %w", doc, to.Where(doc), err)
		}
		if bytes.Equal(cur, b) {
			continue
		}
		var rev struct {
			Revision int64 `json:"revision"`
		}
		_ = json.Unmarshal(b, &rev) // a document without one is at revision 0
		if write != nil {
			err = write(doc, b, rev.Revision)
		} else {
			err = to.Change(ctx, func(tx office.Tx) error { return tx.Write(doc, b, rev.Revision) })
		}
		if err != nil {
			return n, fmt.Errorf("write the office's %s to %s: %w", doc, to.Where(doc), err)
		}
		n++
	}
	return n, nil
}
