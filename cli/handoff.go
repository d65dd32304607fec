package cli

import (
	"context"
	"fmt"
	"strings"

	"desk"
)

func init() {
	Register(&Command{Name: "handoff", Summary: "the project's versioned handoff: handoff [show] | set | section | history | diff", Run: runHandoff})
}

func runHandoff(ctx context.Context, c *Context, args []string) error {
	sub := "show"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	switch sub {
	case "show", "set", "section", "history", "diff":
	default:
		return Usagef("handoff", "unknown handoff command %q: use show, set, section, history or diff", clipArg(sub))
	}
	name := "handoff " + sub
	fs := newFlags(name, c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	asJSON := fs.Bool("json", false, "print JSON")
	var version, to *int
	var file, note, section, text, textFile, by *string
	switch sub {
	case "show":
		version = fs.Int("version", 0, "show this version (default: the latest)")
	case "set":
		file = fs.String("file", "", "the whole handoff as a markdown file (- for standard input)")
		note = fs.String("note", "", "what changed, in a few words")
		by = fs.String("author", "", "who writes it (default $DESK_AUTHOR, else agent)")
	case "section":
		section = fs.String("section", "", "the section: "+strings.Join(desk.HandoffSections, ", "))
		text = fs.String("text", "", "the section's new text (markdown)")
		textFile = fs.String("text-file", "", "read the section's text from a file (- for standard input)")
		by = fs.String("author", "", "who writes it (default $DESK_AUTHOR, else agent)")
	case "diff":
		version = fs.Int("version", 0, "the older version")
		to = fs.Int("to", 0, "the newer version (default: the latest)")
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, name); err != nil {
		return err
	}
	var body string
	switch sub {
	case "set":
		if strings.TrimSpace(*file) == "" {
			return Usagef(name, "--file is required: the handoff as markdown")
		}
		md, err := readTextFile(c, "--file", *file, desk.MaxHandoff)
		if err != nil {
			return err
		}
		body = md
	case "section":
		if strings.TrimSpace(*section) == "" {
			return Usagef(name, "--section is required (%s)", strings.Join(desk.HandoffSections, ", "))
		}
		if _, err := desk.CanonicalSection(*section); err != nil {
			return err
		}
		switch {
		case isSet(fs, "text") && isSet(fs, "text-file"):
			return Usagef(name, "give the text once: --text or --text-file")
		case isSet(fs, "text-file"):
			t, err := readTextFile(c, "--text-file", *textFile, desk.MaxHandoff)
			if err != nil {
				return err
			}
			body = t
		case isSet(fs, "text"):
			body = *text
		default:
			return Usagef(name, "--text is required: the section's new text")
		}
	}
	if version != nil && *version < 0 || to != nil && *to < 0 {
		return Usagef(name, "versions count from 1")
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, name)
	if err != nil {
		return err
	}
	switch sub {
	case "show", "set", "section":
		var h *desk.Handoff
		switch sub {
		case "show":
			h, err = db.Handoff(ctx, slug, *version)
		case "set":
			h, err = db.SaveHandoff(ctx, slug, body, author(c, *by), *note)
		default:
			h, err = db.UpdateHandoffSection(ctx, slug, *section, body, author(c, *by))
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, h)
		}
		if h.Version == 0 {
			fmt.Fprintf(c.Stdout, "%s has no handoff yet: desk handoff set --file HANDOFF.md\n", h.Project)
			return nil
		}
		if sub != "show" {
			fmt.Fprintf(c.Stdout, "Saved %s handoff v%d\n", h.Project, h.Version)
			return nil
		}
		note := ""
		if h.Note != "" {
			note = ": " + h.Note
		}
		fmt.Fprintf(c.Stdout, "%s handoff v%d of %d, by %s at %s%s\n\n", h.Project, h.Version, h.Versions, h.Author, h.CreatedAt, note)
		fmt.Fprintln(c.Stdout, strings.TrimRight(h.Markdown, "\n"))
	case "history":
		vs, err := db.HandoffHistory(ctx, slug)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, map[string]any{"versions": vs})
		}
		if len(vs) == 0 {
			fmt.Fprintf(c.Stdout, "%s has no handoff yet\n", slug)
		}
		for _, v := range vs {
			note := ""
			if v.Note != "" {
				note = "  " + v.Note
			}
			fmt.Fprintf(c.Stdout, "v%-4d %s  %-12s %6d bytes%s\n", v.Version, v.CreatedAt, v.Author, v.Size, note)
		}
	case "diff":
		d, err := db.HandoffDiff(ctx, slug, *version, *to)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, d)
		}
		if d.Diff == "" {
			fmt.Fprintf(c.Stdout, "v%d and v%d are the same\n", d.From, d.To)
			return nil
		}
		fmt.Fprint(c.Stdout, d.Diff)
	}
	return nil
}
