package pair

import (
	"fmt"
	"strings"
)

// MaxEventText bounds what the transcript keeps of an entry's text: a
// letter's whole body stays in the mailbox, and the transcript is read
// two hundred entries at a time.
const MaxEventText = 4000

// EventText is an entry's text as the transcript keeps it: at most
// MaxEventText bytes, cut at a rune boundary and the cut marked.
func EventText(s string) string { return cutText(s, MaxEventText) }

// CreatedEvent is the first entry of the transcript of pair id, made from
// n by by. Every store writes it as CreatePair's last step.
func CreatedEvent(id string, n NewPair, by string) *Event {
	return &Event{Role: by, Kind: EventCreated,
		Text: fmt.Sprintf("pair %s made for %s in %s: %s", id, strings.Join(n.Members, ", "), n.Folder, cutText(n.Task, 300)),
		Detail: map[string]any{"members": n.Members, "mode": n.Mode, "autonomy": n.Autonomy, "autonomy_source": n.AutonomySource,
			"writer": n.PinnedWriter}}
}

// cutText cuts s to at most n bytes at a rune boundary, marking the cut;
// unlike clip it keeps the text's lines.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
