package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"desk"
)

// claimsMigration adds the claims on issues: one row per issue at most,
// written only by the one statement in ClaimIssue. Closing, passing or
// merging an issue ends its claim (the triggers), and deleting it takes
// the claim with it.
const claimsMigration = `
CREATE TABLE issue_claims (
	issue_id   INTEGER PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
	project_id INTEGER NOT NULL REFERENCES projects(id),
	issue_key  TEXT NOT NULL,
	holder     TEXT NOT NULL,
	claimed_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE INDEX issue_claims_project ON issue_claims(project_id, expires_at);

CREATE TRIGGER issue_claims_end AFTER UPDATE OF status ON issues
WHEN NEW.status IN ('passed', 'closed') BEGIN
	DELETE FROM issue_claims WHERE issue_id = NEW.id;
END;
CREATE TRIGGER issue_claims_merged AFTER UPDATE OF merged_into ON issues
WHEN NEW.merged_into IS NOT NULL BEGIN
	DELETE FROM issue_claims WHERE issue_id = NEW.id;
END;
`

var _ desk.ClaimService = (*DB)(nil)

// claimUpsert decides a race for a claim in one statement: the row is
// written only when the issue has none, its claim expired, or the claim is
// the same holder's (a renewal, which keeps when it was first taken).
// Whoever else asks gets no row back.
const claimUpsert = `INSERT INTO issue_claims (issue_id, project_id, issue_key, holder, claimed_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (issue_id) DO UPDATE SET
	claimed_at = CASE WHEN issue_claims.holder = excluded.holder AND issue_claims.expires_at > ?5 THEN issue_claims.claimed_at ELSE excluded.claimed_at END,
	holder = excluded.holder, issue_key = excluded.issue_key, expires_at = excluded.expires_at
WHERE issue_claims.expires_at <= ?5 OR issue_claims.holder = excluded.holder
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
		if errors.Is(err, sql.ErrNoRows) {
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
			return err
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
		if _, err := tx.exec(`DELETE FROM issue_claims WHERE issue_id = ?`, r.rowid); err != nil {
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
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectKey(ctx, tx, slug)
		if err != nil {
			return err
		}
		m, err := projectClaims(ctx, tx, p.id, db.Now())
		for _, c := range m {
			out = append(out, c)
		}
		return err
	})
	desk.SortClaims(out)
	return out, err
}

// claimOf returns the claim in force on an issue at now, or nil.
func claimOf(ctx context.Context, q queryer, issueRowID int64, now time.Time) (*desk.Claim, error) {
	c := &desk.Claim{}
	err := q.QueryRowContext(ctx, `SELECT issue_key, holder, claimed_at, expires_at FROM issue_claims WHERE issue_id = ? AND expires_at > ?`,
		issueRowID, desk.FormatTime(now)).Scan(&c.Issue, &c.Holder, &c.ClaimedAt, &c.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// projectClaims returns the claims in force on a project's issues by issue
// key. A project has a handful at most, and the index keeps them apart
// from the expired ones.
func projectClaims(ctx context.Context, q queryer, projectID int64, now time.Time) (map[string]*desk.Claim, error) {
	rows, err := q.QueryContext(ctx, `SELECT issue_key, holder, claimed_at, expires_at FROM issue_claims WHERE project_id = ? AND expires_at > ?`,
		projectID, desk.FormatTime(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out map[string]*desk.Claim
	for rows.Next() {
		c := &desk.Claim{}
		if err := rows.Scan(&c.Issue, &c.Holder, &c.ClaimedAt, &c.ExpiresAt); err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]*desk.Claim{}
		}
		out[c.Issue] = c
	}
	return out, rows.Err()
}

// withClaim sets the claim in force on an issue read on its own (a
// detail, a write's answer).
func (db *DB) withClaim(ctx context.Context, q queryer, r *row) error {
	c, err := claimOf(ctx, q, r.rowid, db.Now())
	r.Claim = c
	return err
}

// claimedHeads returns heads without the issues a claim is in force on.
func claimedHeads(heads []*head, claims map[string]*desk.Claim) []*head {
	if len(claims) == 0 {
		return heads
	}
	out := make([]*head, 0, len(heads))
	for _, h := range heads {
		if claims[h.key()] == nil {
			out = append(out, h)
		}
	}
	return out
}

// withClaims sets each listed issue's claim in force. The issues' JSON
// kept by the index was written with no claim; a claimed issue's is
// written again with its claim in place.
func withClaims(l *desk.IssueList, claims map[string]*desk.Claim) {
	if len(claims) == 0 {
		return
	}
	for i, is := range l.Issues {
		c := claims[is.ID]
		if c == nil {
			continue
		}
		is.Claim = c
		if i < len(l.Encoded) && l.Encoded[i] != nil {
			l.Encoded[i] = desk.AppendWithClaim(nil, l.Encoded[i], c)
		}
	}
}
