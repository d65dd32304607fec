package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"desk"

	"github.com/jackc/pgx/v5"
)

var _ desk.ClaimService = (*DB)(nil)

// claimUpsert decides a race for a claim in one statement: the row is
// written only when the issue has none, its claim expired, or the claim is
// the same holder's (a renewal, which keeps when it was first taken).
// Whoever else asks gets no row back. The conflict takes the row's lock,
// so two statements on one issue run one after the other however many
// replicas send them.
const claimUpsert = `INSERT INTO issue_claims AS c (issue_id, project_id, issue_key, holder, claimed_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (issue_id) DO UPDATE SET
	claimed_at = CASE WHEN c.holder = excluded.holder AND c.expires_at > excluded.claimed_at THEN c.claimed_at ELSE excluded.claimed_at END,
	holder = excluded.holder, issue_key = excluded.issue_key, expires_at = excluded.expires_at
WHERE c.expires_at <= excluded.claimed_at OR c.holder = excluded.holder
RETURNING holder, claimed_at, expires_at`

// ClaimIssue claims issue id for holder for d, or renews holder's claim.
func (db *DB) ClaimIssue(ctx context.Context, id, holder string, d time.Duration) (*desk.Claim, error) {
	holder, err := desk.CheckHolder(holder)
	if err != nil {
		return nil, err
	}
	if err := desk.CheckClaimLength(d); err != nil {
		return nil, err
	}
	var out *desk.Claim
	err = db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		if desk.IsDone(r.Status) {
			return desk.ErrNothingToClaim(r.ID, r.Status)
		}
		before, err := claimOf(ctx, tx, r.rowid, tx.now)
		if err != nil {
			return err
		}
		c := &desk.Claim{Issue: r.ID}
		expires := desk.FormatTime(tx.now.Add(d))
		err = tx.queryRow(claimUpsert, r.rowid, r.projectID, r.ID, holder, tx.ts, expires).Scan(&c.Holder, &c.ClaimedAt, &c.ExpiresAt)
		if errors.Is(err, pgx.ErrNoRows) {
			cur, err := claimOf(ctx, tx, r.rowid, tx.now)
			if err != nil {
				return err
			}
			if cur == nil { // cannot be: the statement saw a claim in force
				return fmt.Errorf("claim %s: refused with no claim in force", r.ID)
			}
			return desk.ErrClaimed(cur)
		}
		if err != nil {
			return fmt.Errorf("claim %s: %w", r.ID, err)
		}
		out = c
		if before != nil && before.Holder == holder {
			return nil // a renewal: the timeline has the claim already
		}
		_, err = tx.activity(r, holder, desk.ActClaimed, map[string]any{"holder": holder, "until": c.ExpiresAt})
		return err
	})
	return out, err
}

// ReleaseIssue ends the claim on issue id.
func (db *DB) ReleaseIssue(ctx context.Context, id, holder string, force bool) (*desk.Claim, error) {
	var out *desk.Claim
	err := db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		cur, err := claimOf(ctx, tx, r.rowid, tx.now)
		if err != nil || cur == nil {
			return err
		}
		if err := desk.CheckRelease(cur, holder, force); err != nil {
			return err
		}
		if err := tx.exec(`DELETE FROM issue_claims WHERE issue_id = $1`, r.rowid); err != nil {
			return err
		}
		out = cur
		_, err = tx.activity(r, desk.ReleaseActor(holder), desk.ActReleased, map[string]any{"holder": cur.Holder})
		return err
	})
	return out, err
}

// Claims lists the claims in force on a project's issues.
func (db *DB) Claims(ctx context.Context, slug string) ([]*desk.Claim, error) {
	out := []*desk.Claim{}
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		m, err := projectClaims(ctx, q, p.id, db.now())
		for _, c := range m {
			out = append(out, c)
		}
		return err
	})
	desk.SortClaims(out)
	return out, err
}

// claimOf returns the claim in force on an issue at now, or nil.
func claimOf(ctx context.Context, q querier, issueRowID int64, now time.Time) (*desk.Claim, error) {
	c := &desk.Claim{}
	err := q.QueryRow(ctx, `SELECT issue_key, holder, claimed_at, expires_at FROM issue_claims WHERE issue_id = $1 AND expires_at > $2`,
		issueRowID, desk.FormatTime(now)).Scan(&c.Issue, &c.Holder, &c.ClaimedAt, &c.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the claim: %w", err)
	}
	return c, nil
}

// projectClaims returns the claims in force on a project's issues by issue
// key.
func projectClaims(ctx context.Context, q querier, projectID int64, now time.Time) (map[string]*desk.Claim, error) {
	var out map[string]*desk.Claim
	err := eachRow(ctx, q, `SELECT issue_key, holder, claimed_at, expires_at FROM issue_claims WHERE project_id = $1 AND expires_at > $2`,
		[]any{projectID, desk.FormatTime(now)}, func(rs pgx.Rows) error {
			c := &desk.Claim{}
			if err := rs.Scan(&c.Issue, &c.Holder, &c.ClaimedAt, &c.ExpiresAt); err != nil {
				return err
			}
			if out == nil {
				out = map[string]*desk.Claim{}
			}
			out[c.Issue] = c
			return nil
		})
	return out, err
}

// withClaim sets the claim in force on an issue read on its own (a
// detail, a write's answer).
func (db *DB) withClaim(ctx context.Context, q querier, r *row) error {
	c, err := claimOf(ctx, q, r.rowid, db.now())
	r.Claim = c
	return err
}

// withClaims returns a project's issues with the claim in force on each,
// without the claimed ones when unclaimed is set. The issues given are
// not changed: a claimed one is copied.
func (db *DB) withClaims(ctx context.Context, q querier, projectID int64, issues []*desk.Issue, unclaimed bool) ([]*desk.Issue, error) {
	claims, err := projectClaims(ctx, q, projectID, db.now())
	if err != nil || len(claims) == 0 {
		return issues, err
	}
	out := make([]*desk.Issue, 0, len(issues))
	for _, is := range issues {
		c := claims[is.ID]
		switch {
		case c == nil:
			out = append(out, is)
		case !unclaimed:
			cp := *is
			cp.Claim = c
			out = append(out, &cp)
		}
	}
	return out, nil
}
