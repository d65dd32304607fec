package gen

import (
	"fmt"
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

// hexOf renders v as n hex digits, for commit hashes and references that
// must look real and stay the same for a seed.
func hexOf(v uint64, n int) string {
	r := newRNG(v, 0x48455821)
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "%016x", r.next())
	}
	return b.String()[:n]
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	if strings.HasPrefix(s, "the ") {
		s = s[4:]
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// titleFor writes an issue title in the style of its kind.
func titleFor(r *rng, is *issue) string {
	switch is.kind {
	case "check":
		switch r.intn(3) {
		case 0:
			return "Check: " + is.subject + " no longer " + is.problem
		case 1:
			return "Check " + is.subject + " " + is.context
		default:
			return "Verify " + is.subject + " after the fix"
		}
	case "task":
		t := pick(r, taskVerbs) + " " + is.subject
		if is.milestone != "" && r.chance(0.3) {
			t += " for " + is.milestone
		}
		return t
	case "idea":
		return pick(r, ideaOpeners) + " " + is.subject + " " + pick(r, ideaEndings) + "?"
	}
	t := capitalize(is.subject) + " " + is.problem
	if r.chance(0.5) {
		t += " " + is.context
	}
	return t
}

// bodyFor writes an issue's markdown body: a game report's facts, an
// agent's check with how to check it, or the owner's notes.
func bodyFor(r *rng, is *issue) string {
	var b strings.Builder
	cmd := ""
	if len(is.loc.Commands) > 0 {
		cmd = is.loc.Commands[0].Command
	}
	switch {
	case is.source == "game":
		fmt.Fprintf(&b, "Reported from the game.\n\n- place: %s\n- time: %s, %s\n- fps: %d\n", is.loc.Place, is.loc.Time, is.loc.Weather, r.between(18, 144))
		if cmd != "" {
			fmt.Fprintf(&b, "- command: `%s`\n", cmd)
		}
		fmt.Fprintf(&b, "\n> %s %s.\n", capitalize(is.subject), is.problem)
		if r.chance(0.4) {
			fmt.Fprintf(&b, "\n```\n%s\n%s\n```\n", pick(r, logLines), pick(r, logLines))
		}
	case is.kind == "check":
		fmt.Fprintf(&b, "Fixed in `%s`: %s.\n\n## How to check\n", hexOf(r.next(), 7), pick(r, fixes))
		if cmd != "" {
			fmt.Fprintf(&b, "1. Run the first command (%s, %s).\n", is.loc.Place, is.loc.Time)
		} else {
			b.WriteString("1. Start a new world with the default seed.\n")
		}
		fmt.Fprintf(&b, "2. Look at %s.\n3. It should no longer show: %s.\n\n## Evidence\n- %s\n", is.subject, is.problem, pick(r, verifications))
	case is.kind == "idea":
		fmt.Fprintf(&b, "%s %s. It came up while playing %s.\n\nOpen questions:\n- does it fit %s?\n- how much work is %s?\n",
			capitalize(is.subject), pick(r, ideaEndings), is.context, is.milestone+" scope", is.subject)
	default:
		fmt.Fprintf(&b, "%s %s %s.\n", capitalize(is.subject), is.problem, is.context)
		if r.chance(0.7) {
			b.WriteString("\n## Steps\n")
			if cmd != "" {
				fmt.Fprintf(&b, "1. `%s`\n", cmd)
			} else {
				b.WriteString("1. Load the test world.\n")
			}
			fmt.Fprintf(&b, "2. Wait for %s.\n3. Look at %s.\n", pick(r, times), is.subject)
			fmt.Fprintf(&b, "\n## Expected\nNo %s.\n\n## Actual\n%s, %s.\n", strings.TrimPrefix(is.problem, "a "), capitalize(is.problem), pick(r, []string{"every time", "about one time in three", "only after a while", "on some seeds"}))
		}
		if r.chance(0.25) {
			fmt.Fprintf(&b, "\n```\n%s\n```\n", pick(r, logLines))
		}
	}
	if is.areaName == "terrain" && r.chance(0.3) {
		b.WriteString("\nMight be related to the terrain streaming changes.\n")
	}
	return b.String()
}

// agentNote writes a comment an agent leaves while it works.
func agentNote(r *rng, is *issue) string {
	switch r.intn(6) {
	case 0:
		return "Investigating: " + pick(r, findings) + "."
	case 1:
		return "Found it: " + pick(r, findings) + ". Plan: " + pick(r, fixes) + "."
	case 2:
		return fmt.Sprintf("Could not reproduce with seed %d yet; trying at the %s %s.", r.between(1, 99999), pick(r, places), pick(r, times))
	case 3:
		return fmt.Sprintf("Pushed `%s` (%s). Tests pass; screenshot at the location attached if it looks off.", hexOf(r.next(), 7), pick(r, fixes))
	case 4:
		return fmt.Sprintf("Profiled %s:\n\n```\n%s\n%s\n```\n\nThe second line is the one that matters.", is.subject, pick(r, logLines), pick(r, logLines))
	default:
		return "Progress: " + pick(r, stepVerbs) + " " + is.subject + " is done; " + strings.ToLower(pick(r, stepVerbs)) + " next."
	}
}

// fixedNote is an agent's comment when it hands work over.
func fixedNote(r *rng, is *issue) string {
	return fmt.Sprintf("Fixed in `%s`: %s. %s. Moved to to_check with a location command.",
		hexOf(r.next(), 7), pick(r, fixes), capitalize(pick(r, verifications)))
}

// ownerNote writes a comment of the owner.
func ownerNote(r *rng, is *issue) string {
	s := pick(r, ownerRemarks) + "."
	if r.chance(0.4) {
		s += " " + capitalize(is.context) + "."
	}
	if r.chance(0.15) {
		s += "\n\nTry `" + firstCommand(is) + "` and look at " + is.subject + "."
	}
	return s
}

func verdictNote(r *rng, is *issue, verdict string) string {
	if verdict == "passed" {
		return "Passed. " + pick(r, []string{"Looks right now.", "Thanks!", "Good on low settings too.", "Checked at two places."})
	}
	return "Still broken: " + is.problem + " " + pick(r, contexts) + "."
}

func firstCommand(is *issue) string {
	if len(is.loc.Commands) > 0 {
		return is.loc.Commands[0].Command
	}
	return "/goto 0 80 0"
}

// stepText writes one plan step.
func stepText(r *rng, is *issue) string {
	return pick(r, stepVerbs) + " " + is.subject
}
