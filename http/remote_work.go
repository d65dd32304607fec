package http

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"desk"
)

// The work as a member's machine reaches it on the team server: each
// method is one request with the member's token, and answers what the
// store's method of the same name answers.

var _ desk.ClaimService = (*Remote)(nil)

func issueURL(id, rest string) string { return "/api/issues/" + url.PathEscape(id) + rest }

// Issue reads an issue with its comments and timeline.
func (c *Remote) Issue(ctx context.Context, id string) (*desk.IssueDetail, error) {
	d := &desk.IssueDetail{}
	if err := c.Do(ctx, http.MethodGet, issueURL(id, ""), nil, d); err != nil {
		return nil, err
	}
	return d, nil
}

// Issues lists a project's issues.
func (c *Remote) Issues(ctx context.Context, slug string, f desk.IssueFilter) (*desk.IssueList, error) {
	l := &desk.IssueList{Summary: f.Summary}
	if err := c.Do(ctx, http.MethodGet, IssuesPath(slug, f), nil, l); err != nil {
		return nil, err
	}
	return l, nil
}

// AddComment comments on an issue; attachments stay with the local desk.
func (c *Remote) AddComment(ctx context.Context, id string, in desk.CommentInput) (*desk.Comment, *desk.Issue, error) {
	if len(in.Attachments) > 0 {
		return nil, nil, desk.Errorf(desk.Invalid, "files cannot be attached through the team server from the command line yet").
			WithHint("comment without them, and attach them on the page")
	}
	body := map[string]any{"author": in.Author, "text": in.Text}
	if in.Verdict != "" {
		body["verdict"] = in.Verdict
	}
	var out struct {
		Comment *desk.Comment     `json:"comment"`
		Issue   *desk.IssueDetail `json:"issue"`
	}
	if err := c.Do(ctx, http.MethodPost, issueURL(id, "/comments"), body, &out); err != nil {
		return nil, nil, err
	}
	if out.Comment == nil || out.Issue == nil {
		return nil, nil, desk.Errorf(desk.Internal, "the team server's answer to a comment holds no comment or issue")
	}
	return out.Comment, &out.Issue.Issue, nil
}

// ClaimIssue claims an issue for holder for d.
func (c *Remote) ClaimIssue(ctx context.Context, id, holder string, d time.Duration) (*desk.Claim, error) {
	cl := &desk.Claim{}
	if err := c.Do(ctx, http.MethodPost, issueURL(id, "/claim"), map[string]any{"holder": holder, "hours": d.Hours()}, cl); err != nil {
		return nil, err
	}
	return cl, nil
}

// ReleaseIssue ends holder's claim, or with force (a person's) anyone's.
func (c *Remote) ReleaseIssue(ctx context.Context, id, holder string, force bool) (*desk.Claim, error) {
	q := ""
	if !force {
		q = "?holder=" + url.QueryEscape(holder)
	}
	var out struct {
		Claim *desk.Claim `json:"claim"`
	}
	if err := c.Do(ctx, http.MethodDelete, issueURL(id, "/claim"+q), nil, &out); err != nil {
		return nil, err
	}
	return out.Claim, nil
}

// Claims lists the claims in force on a project's issues.
func (c *Remote) Claims(ctx context.Context, slug string) ([]*desk.Claim, error) {
	var out struct {
		Claims []*desk.Claim `json:"claims"`
	}
	err := c.Do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(slug)+"/claims", nil, &out)
	return out.Claims, err
}
