package postgres

import (
	"context"
	"errors"

	"desk"

	"github.com/jackc/pgx/v5"
)

const commandSelect = `SELECT c.id, p.slug, p.prefix, c.command, i.number, c.created_by, c.created_at, c.expires_at, c.delivered_at, c.client
FROM commands c JOIN projects p ON p.id = c.project_id LEFT JOIN issues i ON i.id = c.issue_id `

func scanCommand(s pgx.Row) (*desk.Command, error) {
	var c desk.Command
	var prefix string
	var num *int
	if err := s.Scan(&c.ID, &c.Project, &prefix, &c.Command, &num, &c.CreatedBy, &c.CreatedAt, &c.ExpiresAt, &c.DeliveredAt, &c.Client); err != nil {
		return nil, err
	}
	if num != nil {
		k := desk.IssueKey(prefix, *num)
		c.Issue = &k
	}
	return &c, nil
}

// QueueCommand queues a command for the project's game: the text given, or
// the issue's command (desk.CommandText).
func (db *DB) QueueCommand(ctx context.Context, slug string, in desk.CommandInput) (*desk.Command, error) {
	if err := desk.NormalizeCommandInput(&in); err != nil {
		return nil, err
	}
	var id int64
	err := db.update(ctx, func(tx *Tx) error {
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
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		var is *desk.Issue
		var issueID *int64
		if r != nil {
			is, issueID = &r.Issue, &r.rowid
		}
		if in.Command, err = desk.CommandText(in, is); err != nil {
			return err
		}
		if err := tx.queryRow(`INSERT INTO commands (project_id, issue_id, command, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			p.id, issueID, in.Command, in.Author, tx.ts, desk.CommandExpiry(tx.now)).Scan(&id); err != nil {
			return err
		}
		if r != nil {
			_, err = tx.activity(r, in.Author, desk.ActCommandSent, desk.CommandSentDetail(in.Command, id))
			return err
		}
		tx.projectChange(p.Slug, "command_sent", in.Author)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.Command(ctx, id)
}

// NextCommand hands the oldest pending command to client, once, across
// every replica: the row is claimed with FOR UPDATE SKIP LOCKED, so two
// games polling at the same moment get different commands.
func (db *DB) NextCommand(ctx context.Context, slug, client string) (*desk.Command, error) {
	client = desk.CleanActor(client, desk.GameClient)
	var id int64
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		var issueID *int64
		var command string
		err = tx.queryRow(`SELECT id, issue_id, command FROM commands WHERE project_id = $1 AND delivered_at IS NULL AND expires_at > $2
			ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`, p.id, tx.ts).Scan(&id, &issueID, &command)
		if errors.Is(err, pgx.ErrNoRows) {
			id = 0
			return nil
		}
		if err != nil {
			return err
		}
		if err := tx.exec(`UPDATE commands SET delivered_at = $1, client = $2 WHERE id = $3`, tx.ts, client, id); err != nil {
			return err
		}
		if issueID != nil {
			r, err := issueByRowID(ctx, tx, *issueID)
			if err != nil {
				return err
			}
			_, err = tx.activity(r, client, desk.ActCommandDelivered, desk.CommandDeliveredDetail(command, id, client))
			return err
		}
		tx.projectChange(p.Slug, "command_delivered", client)
		return nil
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
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		out, err = db.queryCommands(ctx, q, commandSelect+`WHERE c.project_id = $1 ORDER BY c.id DESC LIMIT $2`, p.id, limit)
		return err
	})
	return out, err
}

// queryCommands reads commands with their state as of now.
func (db *DB) queryCommands(ctx context.Context, q querier, query string, args ...any) ([]*desk.Command, error) {
	out := []*desk.Command{}
	now := db.now()
	err := eachRow(ctx, q, query, args, func(rs pgx.Rows) error {
		c, err := scanCommand(rs)
		if err != nil {
			return err
		}
		c.State = desk.CommandState(c.DeliveredAt, c.ExpiresAt, now)
		out = append(out, c)
		return nil
	})
	return out, err
}

// Command returns one command.
func (db *DB) Command(ctx context.Context, id int64) (*desk.Command, error) {
	c, err := scanCommand(db.pool.QueryRow(ctx, commandSelect+`WHERE c.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("no command %d", id)
	}
	if err != nil {
		return nil, err
	}
	c.State = desk.CommandState(c.DeliveredAt, c.ExpiresAt, db.now())
	return c, nil
}
