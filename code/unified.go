package code

import (
	"context"
	"fmt"
	"strconv"

	"desk"
)

// MaxDiffContext is the most lines of context a diff shows around a change.
const MaxDiffContext = 1000

// UnifiedDiff writes the difference between two trees as git diff does:
// one "diff --git" part per file, with its mode lines and hunks of
// context lines, which git apply applies. A file that is not text is
// "Binary files ... differ".
func (r *Repository) UnifiedDiff(ctx context.Context, a, b ID, context int) ([]byte, error) {
	if context < 0 || context > MaxDiffContext {
		return nil, desk.Errorf(desk.Invalid, "context: %d is not between 0 and %d", context, MaxDiffContext)
	}
	changes, err := r.DiffTrees(ctx, a, b)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, c := range changes {
		part, err := r.filePatch(ctx, c, context)
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	return out, nil
}

func (r *Repository) filePatch(ctx context.Context, c FileChange, context int) ([]byte, error) {
	// A path that is a file on one side and a folder on the other comes
	// as two changes; a file's type change from link to file is one
	// removal and one addition, as git shows it.
	if c.Old != nil && c.New != nil && (c.Old.Mode == ModeLink) != (c.New.Mode == ModeLink) {
		del, err := r.filePatch(ctx, FileChange{Path: c.Path, Old: c.Old}, context)
		if err != nil {
			return nil, err
		}
		add, err := r.filePatch(ctx, FileChange{Path: c.Path, New: c.New}, context)
		return append(del, add...), err
	}
	b := []byte("diff --git a/" + c.Path + " b/" + c.Path + "\n")
	var oldData, newData []byte
	var err error
	switch {
	case c.Old == nil:
		b = append(b, "new file mode "+c.New.Mode.String()+"\n"...)
	case c.New == nil:
		b = append(b, "deleted file mode "+c.Old.Mode.String()+"\n"...)
	case c.Old.Mode != c.New.Mode:
		b = append(b, "old mode "+c.Old.Mode.String()+"\nnew mode "+c.New.Mode.String()+"\n"...)
	}
	if c.Old != nil {
		if oldData, err = r.Blob(ctx, c.Old.ID); err != nil {
			return nil, err
		}
	}
	if c.New != nil {
		if newData, err = r.Blob(ctx, c.New.ID); err != nil {
			return nil, err
		}
	}
	if c.Old != nil && c.New != nil && c.Old.ID == c.New.ID {
		return b, nil // only the mode changed
	}
	from, to := "a/"+c.Path, "b/"+c.Path
	if c.Old == nil {
		from = "/dev/null"
	}
	if c.New == nil {
		to = "/dev/null"
	}
	if IsBinary(oldData) || IsBinary(newData) {
		return append(b, "Binary files "+from+" and "+to+" differ\n"...), nil
	}
	b = append(b, "--- "+from+"\n+++ "+to+"\n"...)
	return appendHunks(b, Lines(oldData), Lines(newData), context), nil
}

// appendHunks writes the hunks that turn a into b with context lines.
func appendHunks(out []byte, a, b [][]byte, context int) []byte {
	hs := diffLines(a, b)
	for k := 0; k < len(hs); {
		// A hunk of output covers the changes whose context meets.
		end := k
		for end+1 < len(hs) && hs[end+1].A0-hs[end].A1 <= 2*context {
			end++
		}
		a0 := max(hs[k].A0-context, 0)
		a1 := min(hs[end].A1+context, len(a))
		b0 := hs[k].B0 - (hs[k].A0 - a0)
		b1 := hs[end].B1 + (a1 - hs[end].A1)
		out = append(out, "@@ -"+rangeText(a0, a1-a0)+" +"+rangeText(b0, b1-b0)+" @@\n"...)
		line := func(prefix byte, l []byte) {
			out = append(out, prefix)
			out = append(out, l...)
			if len(l) == 0 || l[len(l)-1] != '\n' {
				out = append(out, "\n\\ No newline at end of file\n"...)
			}
		}
		ai := a0
		for h := k; h <= end; h++ {
			for ; ai < hs[h].A0; ai++ {
				line(' ', a[ai])
			}
			for ; ai < hs[h].A1; ai++ {
				line('-', a[ai])
			}
			for bi := hs[h].B0; bi < hs[h].B1; bi++ {
				line('+', b[bi])
			}
		}
		for ; ai < a1; ai++ {
			line(' ', a[ai])
		}
		k = end + 1
	}
	return out
}

// rangeText is a hunk's range as git writes it: "start,count", with the
// count left out when it is 1 and the start one before the lines when
// there are none.
func rangeText(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}
