package pair

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// NoteAnswer answers pair_note.
type NoteAnswer struct {
	Kind    string `json:"kind"`
	Entry   int64  `json:"entry"`
	Entries int    `json:"entries"`
}

// Note appends an entry to one of the pair's notes.
func (s *Service) Note(ctx context.Context, c Caller, kind, text string) (*NoteAnswer, error) {
	kind = strings.ToLower(strings.TrimSpace(kind))
	var out *NoteAnswer
	err := s.act(ctx, c, "pair_note", func(k *call) error {
		if err := checkNoteKind(kind); err != nil {
			return err
		}
		switch {
		case strings.TrimSpace(text) == "":
			return refuse(RuleEmpty, invalid, "pair_note needs text").WithHint("write the entry in text")
		case len(text) > MaxNote:
			return tooLarge("the note entry", len(text), MaxNote, "split it into several entries")
		}
		n := &NoteEntry{Kind: kind, Role: k.role, Round: k.p.Round, Text: text}
		if err := k.tx.AddNote(n); err != nil {
			return err
		}
		if _, err := k.log(EventNote, fmt.Sprintf("%s note: %s", kind, clip(text, 300)), map[string]any{"kind": kind, "entry": n.ID}); err != nil {
			return err
		}
		idx, err := k.tx.NoteIndex()
		if err != nil {
			return err
		}
		out = &NoteAnswer{Kind: kind, Entry: n.ID}
		for _, ni := range idx {
			if ni.Kind == kind {
				out.Entries = ni.Entries
			}
		}
		return nil
	})
	return out, err
}

func checkNoteKind(kind string) error {
	if !slices.Contains(NoteKinds, kind) {
		return refuse(RuleEmpty, invalid, "%q is not a kind of note: use %s", clip(kind, 40), strings.Join(NoteKinds, ", ")).
			WithHint("plan for the plan, finding for a defect, verdict for a review's outcome")
	}
	return nil
}

// NoteIndex lists every note with its size and entry count, largest
// first, so that an agent decides what to read before paying for it.
func (s *Service) NoteIndex(ctx context.Context, c Caller) ([]NoteInfo, error) {
	var out []NoteInfo
	err := s.look(ctx, c, "pair_note_index", func(tx ReadTx, p *Pair, m *Member) error {
		var err error
		out, err = tx.NoteIndex()
		slices.SortStableFunc(out, func(a, b NoteInfo) int { return b.Bytes - a.Bytes })
		if out == nil {
			out = []NoteInfo{}
		}
		return err
	})
	return out, err
}

// NoteTailAnswer answers pair_note_read.
type NoteTailAnswer struct {
	Kind    string `json:"kind"`
	Entries int    `json:"entries"` // shown
	Total   int    `json:"total"`
	Lines   int    `json:"lines"`
	// Cut says older entries were left out; Clipped that even the newest
	// entry was longer than the limit and only its end is shown.
	Cut     bool   `json:"cut,omitempty"`
	Clipped bool   `json:"clipped,omitempty"`
	Text    string `json:"text"`
}

// MaxNoteLines caps what pair_note_read returns.
const MaxNoteLines = 400

// NoteRead reads the tail of a note: its newest entries, whole, as many
// as fit in lines (at most MaxNoteLines).
func (s *Service) NoteRead(ctx context.Context, c Caller, kind string, lines int) (*NoteTailAnswer, error) {
	kind = strings.ToLower(strings.TrimSpace(kind))
	if lines <= 0 || lines > MaxNoteLines {
		lines = MaxNoteLines
	}
	var out *NoteTailAnswer
	err := s.look(ctx, c, "pair_note_read", func(tx ReadTx, p *Pair, m *Member) error {
		if err := checkNoteKind(kind); err != nil {
			return err
		}
		idx, err := tx.NoteIndex()
		if err != nil {
			return err
		}
		out = &NoteTailAnswer{Kind: kind}
		for _, ni := range idx {
			if ni.Kind == kind {
				out.Total = ni.Entries
			}
		}
		// Entries are at least two lines with their heading: a tail of
		// lines lines has at most lines/2 of them.
		tail, err := tx.NoteTail(kind, lines/2+1)
		if err != nil {
			return err
		}
		var parts []string
		used := 0
		for i, e := range tail {
			block := fmt.Sprintf("## %s · %s · round %d\n%s", e.Role, e.At, e.Round, strings.TrimRight(e.Text, "\n"))
			n := strings.Count(block, "\n") + 1
			if len(parts) > 0 {
				n++ // the blank line between entries
			}
			if used+n > lines {
				if i == 0 {
					// The newest entry alone is longer than the limit:
					// its end, cut at a line.
					all := strings.Split(block, "\n")
					block = strings.Join(all[len(all)-lines:], "\n")
					out.Clipped = true
					parts, used = append(parts, block), lines
				}
				out.Cut = true
				break
			}
			parts = append(parts, block)
			used += n
		}
		if len(parts) < out.Total {
			out.Cut = true
		}
		slices.Reverse(parts)
		out.Entries, out.Lines, out.Text = len(parts), used, strings.Join(parts, "\n\n")
		return nil
	})
	return out, err
}
