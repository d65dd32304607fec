package pair

import (
	"regexp"
	"strings"
)

// Prompt is a permission prompt an agent's terminal shows: the agent
// waits for a yes before it runs a command or writes a file.
type Prompt struct {
	// CLI is whose prompt it is: claude, codex, or generic for a plain
	// [y/N] question.
	CLI string `json:"cli"`
	// Kind is command, edit or confirm.
	Kind string `json:"kind"`
	// Tool is the prompt's heading ("Bash command", "Create file").
	Tool string `json:"tool,omitempty"`
	// Line is the exact prompt line decided on: the command, the file's
	// path, or the question. It goes to the transcript with the decision.
	Line string `json:"line"`
	// Block is every line of the prompt, for the never-list.
	Block string `json:"-"`
	// Question is the line that asks.
	Question string `json:"question"`
	// Keys confirm "yes" in this prompt.
	Keys []string `json:"-"`
	// Ready says the selection is on "yes", so that Keys confirm it.
	Ready bool `json:"-"`
}

// Prompt kinds.
const (
	PromptCommand = "command"
	PromptEdit    = "edit"
	PromptConfirm = "confirm"
)

// FindPrompt reads the permission prompt a screen shows, if one is open.
func FindPrompt(screen string) (Prompt, bool) {
	lines := strings.Split(strings.ReplaceAll(screen, "\r\n", "\n"), "\n")
	if p, ok := claudePrompt(lines); ok {
		return p, true
	}
	if p, ok := codexPrompt(lines); ok {
		return p, true
	}
	return genericPrompt(lines)
}

// claudePrompt reads Claude Code's prompt: a heading under a rule ("Bash
// command", "Create file", "Edit file"), what it is about, and "Do you
// want to ...?" over a numbered menu with ❯ on the selected option.
func claudePrompt(lines []string) (Prompt, bool) {
	q := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "Do you want to ") {
			q = i
			break
		}
	}
	if q < 0 {
		return Prompt{}, false
	}
	// The menu follows the question; the prompt is open while it shows.
	menu, ready := false, false
	for _, l := range lines[q+1:] {
		t := strings.TrimSpace(l)
		if strings.Contains(t, "1. Yes") {
			menu = true
			ready = strings.HasPrefix(t, "❯")
		}
	}
	if !menu {
		return Prompt{}, false
	}
	top := 0
	for i := q - 1; i >= 0; i-- {
		if isRule(lines[i]) && !strings.Contains(lines[i], "╌") {
			top = i + 1
			break
		}
	}
	var body []string
	for _, l := range lines[top:q] {
		if t := strings.TrimSpace(l); t != "" && !isRule(l) {
			body = append(body, t)
		}
	}
	// An edit's new lines sit between dashed rules after the file's name;
	// they are what the agent writes, not what the prompt is about.
	if i := dashedRule(lines, top, q); i >= 0 {
		var head []string
		for _, l := range lines[top:i] {
			if t := strings.TrimSpace(l); t != "" {
				head = append(head, t)
			}
		}
		body = head
	}
	p := Prompt{CLI: "claude", Question: strings.TrimSpace(lines[q]), Keys: []string{KeyEnter}, Ready: ready}
	p.Block = strings.Join(append(append([]string{}, body...), p.Question), "\n")
	if len(body) > 0 {
		p.Tool = body[0]
		body = body[1:]
	}
	// What follows the heading: the command (and a description of it), or
	// the file and its new lines between dashed rules. The notes Claude
	// adds about its rules end the block.
	var about []string
	for _, l := range body {
		if strings.HasPrefix(l, "Permission rule ") || strings.HasPrefix(l, "/permissions") {
			break
		}
		about = append(about, l)
	}
	heading := strings.ToLower(p.Tool)
	switch {
	case strings.Contains(heading, "file") || strings.Contains(heading, "edit"):
		p.Kind = PromptEdit
		if len(about) > 0 {
			p.Line = about[0]
		}
	case strings.Contains(heading, "command") || strings.Contains(heading, "bash"):
		p.Kind = PromptCommand
		if len(about) > 1 {
			about = about[:len(about)-1] // the last line describes the command
		}
		p.Line = strings.Join(about, "\n")
	default:
		p.Kind = PromptConfirm
		p.Line = p.Question
		if len(about) > 0 {
			p.Line = p.Tool + ": " + strings.Join(about, " ")
		}
	}
	return p, true
}

// codexPrompt reads Codex's prompt: "Would you like to run the following
// command?" (or to make edits), the command after "$ ", and a menu whose
// first option, "Yes, proceed (y)", y confirms.
func codexPrompt(lines []string) (Prompt, bool) {
	q := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "Would you like to ") {
			q = i
			break
		}
	}
	if q < 0 {
		return Prompt{}, false
	}
	menu := -1
	for i := q + 1; i < len(lines); i++ {
		if t := strings.TrimLeft(strings.TrimSpace(lines[i]), "›> "); strings.HasPrefix(t, "1. Yes") {
			menu = i
			break
		}
	}
	if menu < 0 {
		return Prompt{}, false
	}
	p := Prompt{CLI: "codex", Question: strings.TrimSpace(lines[q]), Keys: []string{KeyY}, Ready: true}
	var body, cmd []string
	for _, l := range lines[q+1 : menu] {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		body = append(body, t)
		switch {
		case strings.HasPrefix(t, "$ "):
			cmd = append(cmd, strings.TrimPrefix(t, "$ "))
		case len(cmd) > 0:
			cmd = append(cmd, t) // a command that goes on over lines
		}
	}
	p.Block = strings.Join(append([]string{p.Question}, body...), "\n")
	switch {
	case strings.Contains(p.Question, "command"):
		p.Kind, p.Tool, p.Line = PromptCommand, "command", strings.Join(cmd, "\n")
	case strings.Contains(p.Question, "edit") || strings.Contains(p.Question, "change"):
		p.Kind, p.Tool = PromptEdit, "edit"
		for _, b := range body {
			if !strings.Contains(b, ":") {
				p.Line = b
				break
			}
		}
	default:
		p.Kind, p.Line = PromptConfirm, p.Question
	}
	return p, true
}

var yesNo = regexp.MustCompile(`(?i)(\[y/n\]|\(y/n\)|\[yes/no\]|\(yes/no\)|allow (command )?execution\?)\s*:?\s*$`)

// genericPrompt reads a plain question that ends a screen: "[y/N]",
// "(y/n)", "Allow execution?".
func genericPrompt(lines []string) (Prompt, bool) {
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-6; i-- {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		if yesNo.MatchString(t) {
			return Prompt{CLI: "generic", Kind: PromptConfirm, Line: t, Block: t, Question: t, Keys: []string{KeyY, KeyEnter}, Ready: true}, true
		}
		return Prompt{}, false
	}
	return Prompt{}, false
}

// dashedRule returns the first dashed rule between lines from and to, or -1.
func dashedRule(lines []string, from, to int) int {
	for i := from; i < to; i++ {
		if isRule(lines[i]) && strings.Contains(lines[i], "╌") {
			return i
		}
	}
	return -1
}

// isRule reports whether a line is a horizontal rule of box characters.
func isRule(l string) bool {
	t := strings.TrimSpace(l)
	if len(t) < 12 {
		return false
	}
	for _, r := range t {
		if r != '─' && r != '━' && r != '╌' && r != '-' {
			return false
		}
	}
	return true
}
