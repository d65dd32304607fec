package sqlite

import (
	"context"
	"database/sql"
	"time"

	"desk"
)

const commandSelect = `SELECT c.id, p.slug, p.prefix, c.command, i.number, c.created_by, c.created_at, c.expires_at, c.delivered_at, c.client
FROM commands c JOIN projects p ON p.id = c.project_id LEFT JOIN issues i ON i.id = c.issue_id `

// scanCommand reads a command row. Its State moves with the clock and is
// left for stateAt.
func scanCommand(s scanner) (*desk.Command, error) {
	var c desk.Command
	var prefix string
	var num sql.NullInt64
	var delivered, client sql.NullString
	if err := s.Scan(&c.ID, &c.Project, &prefix, &c.Command, &num, &c.CreatedBy, &c.CreatedAt, &c.ExpiresAt, &delivered, &client); err != nil {
		return nil, err
	}
	if num.Valid {
		k := desk.IssueKey(prefix, int(num.Int64))
		c.Issue = &k
	}
	if delivered.Valid {
		c.DeliveredAt = &delivered.String
	}
	if client.Valid {
		c.Client = &client.String
	}
	return &c, nil
}

// stateAt sets c's state as of now and returns c.
func stateAt(c *desk.Command, now time.Time) *desk.Command {
	c.State = desk.CommandState(c.DeliveredAt, c.ExpiresAt, now)
	return c
}

// commandsAt returns copies of kept commands with their state as of now:
// the kept ones are shared by every read of their issue.
func commandsAt(kept []*desk.Command, now time.Time) []*desk.Command {
	out := make([]*desk.Command, len(kept))
	for i, c := range kept {
		cp := *c
		out[i] = stateAt(&cp, now)
	}
	return out
}

// QueueCommand queues a command for the project's game: the text given, or
// the issue's command number At (the first by default) with its world seed.
func (db *DB) QueueCommand(ctx context.Context, slug string, in desk.CommandInput) (*desk.Command, error) {
	if err := desk.NormalizeCommandInput(&in); err != nil {
		return nil, err
	}
	var id int64
	err := db.update(ctx, func(tx *Tx) error {
		var p *projectRow
		var r *row
		var err error
		if in.Issue != "" {
			if r, _, err = resolve(ctx, tx, in.Issue); err != nil {
				return err
			}
			if err := desk.CheckCommandProject(&r.Issue, slug); err != nil {
				return err
			}
			slug = r.Project
		}
		if p, err = projectBySlug(ctx, tx, slug); err != nil {
			return err
		}
		var is *desk.Issue
		if r != nil {
			is = &r.Issue
		}
		if in.Command, err = desk.CommandText(in, is); err != nil {
			return err
		}
		expires := desk.CommandExpiry(tx.now)
		var issueID any
		if r != nil {
			issueID = r.rowid
		}
		res, err := tx.exec(`INSERT INTO commands (project_id, issue_id, command, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
			p.id, issueID, in.Command, in.Author, tx.ts, expires)
		if err != nil {
			return err
		}
		id, _ = res.LastInsertId()
		if r != nil {
			_, err = tx.activity(r, in.Author, desk.ActCommandSent, desk.CommandSentDetail(in.Command, id))
			return err
		}
		return tx.projectChange(p.Slug, "command_sent", in.Author)
	})
	if err != nil {
		return nil, err
	}
	return db.Command(ctx, id)
}

// NextCommand hands the oldest pending command to client, once. The write
// lock makes two games polling at the same moment get different commands.
func (db *DB) NextCommand(ctx context.Context, slug, client string) (*desk.Command, error) {
	client = cleanActor(client, desk.GameClient)
	var id int64
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		var issueID sql.NullInt64
		var command string
		err = tx.queryRow(`SELECT id, issue_id, command FROM commands WHERE project_id = ? AND delivered_at IS NULL AND expires_at > ?
			ORDER BY id LIMIT 1`, p.id, tx.ts).Scan(&id, &issueID, &command)
		if err == sql.ErrNoRows {
			id = 0
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE commands SET delivered_at = ?, client = ? WHERE id = ?`, tx.ts, client, id); err != nil {
			return err
		}
		if issueID.Valid {
			r, err := issueByRowID(ctx, tx, issueID.Int64)
			if err != nil {
				return err
			}
			_, err = tx.activity(r, client, desk.ActCommandDelivered, desk.CommandDeliveredDetail(command, id, client))
			return err
		}
		return tx.projectChange(p.Slug, "command_delivered", client)
	})
	if err != nil || id == 0 {
		return nil, err
	}
	return db.Command(ctx, id)
}

// Commands lists a project's recent commands, newest first.
func (db *DB) Commands(ctx context.Context, slug string, limit int) ([]*desk.Command, error) {
	limit = desk.CommandsLimit(limit)
	var out []*desk.Command
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		out, err = db.queryCommands(ctx, tx, commandSelect+`WHERE c.project_id = ? ORDER BY c.id DESC LIMIT ?`, p.id, limit)
		return err
	})
	return out, err
}

func (db *DB) queryCommands(ctx context.Context, q queryer, query string, args ...any) ([]*desk.Command, error) {
	out, err := readCommands(ctx, q, query, args...)
	now := db.Now()
	for _, c := range out {
		stateAt(c, now)
	}
	return out, err
}

// readCommands reads the commands query selects, without their state.
func readCommands(ctx context.Context, q queryer, query string, args ...any) ([]*desk.Command, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*desk.Command{}
	for rows.Next() {
		c, err := scanCommand(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Command returns one command.
func (db *DB) Command(ctx context.Context, id int64) (*desk.Command, error) {
	c, err := scanCommand(db.pool().QueryRowContext(ctx, commandSelect+`WHERE c.id = ?`, id))
	if err == sql.ErrNoRows {
		return nil, notFound("no command %d", id)
	}
	if err != nil {
		return nil, err
	}
	return stateAt(c, db.Now()), nil
}

// issueCommands returns the last ten commands sent for an issue, without
// their state. The project and the issue are r's, so they are bound rather
// than joined. A detail keeps them with its other parts: every command
// sent for an issue or delivered from it writes an entry in the issue's
// timeline (see extendDetailParts).
func issueCommands(ctx context.Context, q queryer, r *row) ([]*desk.Command, error) {
	return readCommands(ctx, q, `SELECT c.id, ?, ?, c.command, ?, c.created_by, c.created_at, c.expires_at, c.delivered_at, c.client
		FROM commands c WHERE c.issue_id = ? ORDER BY c.id DESC LIMIT 10`, r.Project, r.prefix, r.Number, r.rowid)
}
