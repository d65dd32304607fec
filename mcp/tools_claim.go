package mcp

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"

	"desk"
)

// The claims on issues: an agent picking work from the backlog claims the
// issue first, and the others leave it alone. The holder is the calling
// session, never an argument: one agent cannot claim in another's name.

// sessionVars name the calling session, in the order they are trusted:
// desk's own (a managed session), then the CLIs' own.
var sessionVars = []string{"DESK_SESSION_ID", "CLAUDE_CODE_SESSION_ID"}

// claimHolder is the calling session: the client's name and its session
// id, else the client's name and its process (this server's parent).
func (s *server) claimHolder() string {
	client := s.clientName()
	for _, v := range sessionVars {
		if id := strings.TrimSpace(s.opts.Getenv(v)); id != "" {
			return client + " " + id
		}
	}
	return client + " pid " + strconv.Itoa(os.Getppid())
}

var claimTools = []*tool{
	{
		name: "claim_issue",
		desc: "Claim an issue before you work on it, so that other agents leave it alone; claiming it again renews it. " +
			"Refused, naming the holder and the expiry, while another session holds it.",
		params: []param{
			pID,
			{name: "hours", typ: tNumber, desc: "how long, from one minute (0.017) to 24 hours; default 2"},
		},
		run: claimIssue,
	},
	{
		name:   "release_issue",
		desc:   "Release your claim on an issue. Closing or passing the issue ends its claim by itself.",
		params: []param{pID},
		run:    releaseIssue,
	},
	{
		name:     "list_claims",
		desc:     "The claims in force on a project's issues, soonest expiry first.",
		readOnly: true,
		params:   []param{pProject},
		run:      listClaims,
	},
}

func claimIssue(ctx context.Context, s *server, a *args) (any, error) {
	var hours *float64
	if a.has("hours") {
		h := a.number("hours")
		if math.IsNaN(h) {
			return nil, argError("claim_issue: argument 'hours' must be a number")
		}
		hours = &h
	}
	d, err := desk.ClaimDuration(hours)
	if err != nil {
		return nil, err
	}
	return s.db.ClaimIssue(ctx, a.str("id"), s.claimHolder(), d)
}

func releaseIssue(ctx context.Context, s *server, a *args) (any, error) {
	c, err := s.db.ReleaseIssue(ctx, a.str("id"), s.claimHolder(), false)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return map[string]any{"id": a.str("id"), "released": false, "note": "the issue had no claim in force"}, nil
	}
	return map[string]any{"id": c.Issue, "released": true}, nil
}

func listClaims(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	cs, err := s.db.Claims(ctx, slug)
	if err != nil {
		return nil, err
	}
	return map[string]any{"project": slug, "claims": cs, "you": s.claimHolder()}, nil
}
