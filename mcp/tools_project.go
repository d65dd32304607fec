package mcp

import (
	"context"

	"desk"
)

// projectTools work on a project as a whole: its build, the game's command
// queue and the handoff.
var projectTools = []*tool{
	{
		name: "set_build",
		desc: "Publish the build the owner will play (a player executable, build folder or version). " +
			"Every issue waiting in to_check gets it stamped; the same build again changes nothing.",
		params: []param{
			pProject,
			{name: "path", typ: tString, required: true, desc: "the executable, folder or version string"},
			{name: "commit", typ: tString, desc: "the commit it was built from"},
			{name: "label", typ: tString, desc: "a short name, e.g. nightly 12"},
			{name: "built_at", typ: tString, desc: "ISO time it was built"},
			pAuthor,
		},
		run: setBuild,
	},
	{
		name: "queue_command",
		desc: "Send a command to the running game: a command text, or an issue's location command (the first, or number at). " +
			"The game picks it up once; it expires after 10 minutes.",
		params: []param{
			pProject,
			{name: "command", typ: tString, desc: "the command text"},
			{name: "issue", typ: tString, desc: "an issue whose command to send"},
			{name: "at", typ: tInteger, min: intp(1), desc: "which of the issue's commands, 1 = first"},
			pAuthor,
		},
		run: queueCommand,
	},
	{
		name:     "get_handoff",
		desc:     "Read the project's handoff: where work stopped, what is verified, the next step and the traps.",
		readOnly: true,
		params:   []param{pProject, {name: "version", typ: tInteger, min: intp(1), desc: "an older version; default the latest"}},
		run:      getHandoff,
	},
	{
		name: "set_handoff",
		desc: "Save the whole handoff as a new version: markdown with ## State, ## Where work stopped, ## Verified, ## Next step, ## Traps.",
		params: []param{
			pProject,
			{name: "markdown", typ: tString, required: true},
			{name: "note", typ: tString, desc: "what changed, in a few words"},
			pAuthor,
		},
		run: setHandoff,
	},
	{
		name: "update_handoff",
		desc: "Replace one section of the handoff, saved as a new version.",
		params: []param{
			pProject,
			{name: "section", typ: tString, required: true, enum: desk.HandoffSections, lenient: true},
			{name: "text", typ: tString, required: true, desc: "the section's new markdown"},
			pAuthor,
		},
		run: updateHandoff,
	},
}

func setBuild(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	res, err := s.db.SetBuild(ctx, slug, desk.BuildInput{
		Path: a.str("path"), Commit: a.str("commit"), Label: a.str("label"), BuiltAt: a.str("built_at"), Author: s.author(a),
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"project": res.Project, "stamped": res.Stamped}
	if res.Build != nil {
		out["build"] = map[string]any{"number": res.Build.Number, "label": res.Build.Label, "path": res.Build.Path, "commit": res.Build.Commit}
	}
	if res.Unchanged {
		out["unchanged"] = true
	}
	return out, nil
}

func queueCommand(ctx context.Context, s *server, a *args) (any, error) {
	slug := a.str("project")
	if slug == "" && a.str("issue") == "" {
		var err error
		if slug, err = s.project(ctx, a); err != nil {
			return nil, err
		}
	}
	c, err := s.db.QueueCommand(ctx, slug, desk.CommandInput{
		Command: a.str("command"), Issue: a.str("issue"), At: a.integer("at", 0), Author: s.author(a),
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"id": c.ID, "command": c.Command, "state": c.State, "expires_at": c.ExpiresAt}
	if c.Issue != nil {
		out["issue"] = *c.Issue
	}
	return out, nil
}

func getHandoff(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	h, err := s.db.Handoff(ctx, slug, a.integer("version", 0))
	if err != nil {
		return nil, err
	}
	out := handoffAnswer(h)
	if b, err := s.db.BuildState(ctx, slug); err == nil && b.Enabled {
		if b.Build != nil {
			out["build"] = map[string]any{"label": b.Build.Label, "path": b.Build.Path, "commit": b.Build.Commit}
		} else {
			out["build"] = nil
		}
	}
	return out, nil
}

// handoffAnswer is get_handoff's answer for h, without the build.
func handoffAnswer(h *desk.Handoff) map[string]any {
	out := map[string]any{"project": h.Project, "version": h.Version, "versions": h.Versions}
	if h.Version == 0 {
		out["markdown"] = ""
		out["hint"] = "no handoff yet: write one with set_handoff before you stop"
	} else {
		out["author"], out["created_at"], out["markdown"] = h.Author, h.CreatedAt, h.Markdown
		if h.Note != "" {
			out["note"] = h.Note
		}
	}
	return out
}

func setHandoff(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	h, err := s.db.SaveHandoff(ctx, slug, a.str("markdown"), s.author(a), a.str("note"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"project": h.Project, "version": h.Version, "saved_by": h.Author}, nil
}

func updateHandoff(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	h, err := s.db.UpdateHandoffSection(ctx, slug, a.str("section"), a.str("text"), s.author(a))
	if err != nil {
		return nil, err
	}
	var sections []string
	for _, name := range desk.HandoffSections {
		if h.Sections[name] != "" {
			sections = append(sections, name)
		}
	}
	return map[string]any{"project": h.Project, "version": h.Version, "sections": sections}, nil
}
