package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// SchemaVersion is the schema this code writes. A database from a newer desk
// opens only if it is a version this code knows; restore refuses newer ones.
var SchemaVersion = len(migrations)

// migrations are the schema's steps, in order; entry i brings the schema to
// version i+1. They only add: nothing is ever dropped or rewritten, so an
// older desk keeps working on a migrated file.
var migrations = []string{
	// 1: the data model, the change feed and the counters kept by triggers.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE projects (
	id             INTEGER PRIMARY KEY,
	slug           TEXT NOT NULL UNIQUE,
	name           TEXT NOT NULL,
	prefix         TEXT NOT NULL UNIQUE,
	next_number    INTEGER NOT NULL DEFAULT 1,
	default_seed   INTEGER,
	notify         TEXT NOT NULL DEFAULT '{"comments":true,"verdicts":true,"reports":true,"status":true}',
	lead           TEXT,
	build          TEXT,              -- the current build as JSON, or NULL
	builds_count   INTEGER NOT NULL DEFAULT 0,
	builds_enabled INTEGER NOT NULL DEFAULT 0,
	created_at     TEXT NOT NULL,
	updated_at     TEXT NOT NULL
);

CREATE TABLE issues (
	id               INTEGER PRIMARY KEY,
	project_id       INTEGER NOT NULL REFERENCES projects(id),
	number           INTEGER NOT NULL,
	title            TEXT NOT NULL,
	body             TEXT NOT NULL DEFAULT '',
	kind             TEXT NOT NULL,
	status           TEXT NOT NULL,
	priority         TEXT NOT NULL,
	area             TEXT NOT NULL DEFAULT '',
	tags             TEXT NOT NULL DEFAULT '[]',
	location         TEXT NOT NULL DEFAULT '{}',
	seed             INTEGER,          -- location.seed, for the seed filter
	source           TEXT NOT NULL,
	external_ref     TEXT NOT NULL DEFAULT '',
	size             TEXT NOT NULL DEFAULT '',
	milestone        TEXT NOT NULL DEFAULT '',
	build            TEXT,             -- the build it was handed over in, as JSON
	plan             TEXT NOT NULL DEFAULT '{}',
	plan_done        INTEGER NOT NULL DEFAULT 0,
	plan_total       INTEGER NOT NULL DEFAULT 0,
	parent_id        INTEGER REFERENCES issues(id) ON DELETE SET NULL,
	merged_into      INTEGER REFERENCES issues(id),
	comment_count    INTEGER NOT NULL DEFAULT 0,
	attachment_count INTEGER NOT NULL DEFAULT 0,
	last_verdict     TEXT,
	child_count      INTEGER NOT NULL DEFAULT 0,
	child_done       INTEGER NOT NULL DEFAULT 0,
	created_at       TEXT NOT NULL,
	updated_at       TEXT NOT NULL,
	closed_at        TEXT,
	UNIQUE (project_id, number)
);
CREATE INDEX issues_project_status ON issues(project_id, status);
CREATE INDEX issues_project_ref ON issues(project_id, external_ref);
CREATE INDEX issues_project_updated ON issues(project_id, updated_at);
CREATE INDEX issues_parent ON issues(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX issues_merged ON issues(merged_into) WHERE merged_into IS NOT NULL;

CREATE TABLE comments (
	id          INTEGER PRIMARY KEY,
	issue_id    INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	author      TEXT NOT NULL,
	text        TEXT NOT NULL DEFAULT '',
	verdict     TEXT,
	created_at  TEXT NOT NULL,
	merged_from INTEGER
);
CREATE INDEX comments_issue ON comments(issue_id, id);

CREATE TABLE attachments (
	id          INTEGER PRIMARY KEY,
	issue_id    INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	comment_id  INTEGER REFERENCES comments(id) ON DELETE SET NULL,
	filename    TEXT NOT NULL,
	mime        TEXT NOT NULL,
	size        INTEGER NOT NULL,
	stored_path TEXT NOT NULL,
	created_at  TEXT NOT NULL,
	merged_from INTEGER
);
CREATE INDEX attachments_issue ON attachments(issue_id, id);
CREATE INDEX attachments_comment ON attachments(comment_id) WHERE comment_id IS NOT NULL;

CREATE TABLE activity (
	id          INTEGER PRIMARY KEY,
	issue_id    INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	actor       TEXT NOT NULL,
	action      TEXT NOT NULL,
	detail      TEXT NOT NULL DEFAULT '{}',
	created_at  TEXT NOT NULL,
	merged_from INTEGER
);
CREATE INDEX activity_issue ON activity(issue_id, id);

CREATE TABLE commands (
	id           INTEGER PRIMARY KEY,
	project_id   INTEGER NOT NULL REFERENCES projects(id),
	issue_id     INTEGER REFERENCES issues(id) ON DELETE SET NULL,
	command      TEXT NOT NULL,
	created_by   TEXT NOT NULL DEFAULT 'owner',
	created_at   TEXT NOT NULL,
	expires_at   TEXT NOT NULL,
	delivered_at TEXT,
	client       TEXT
);
CREATE INDEX commands_pending ON commands(project_id, delivered_at, id);
CREATE INDEX commands_issue ON commands(issue_id, id) WHERE issue_id IS NOT NULL;

CREATE TABLE handoffs (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id INTEGER NOT NULL REFERENCES projects(id),
	version    INTEGER NOT NULL,
	markdown   TEXT NOT NULL,
	author     TEXT NOT NULL,
	note       TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	UNIQUE (project_id, version)
);

-- The change feed: every write appends its rows in its own transaction.
-- project and issue are kept as text so that a row still names a deleted
-- issue; seq never goes back (AUTOINCREMENT), so readers can resume.
CREATE TABLE changes (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	project    TEXT NOT NULL DEFAULT '',
	issue_id   INTEGER,
	issue      TEXT,
	type       TEXT NOT NULL,
	ref_id     INTEGER NOT NULL DEFAULT 0,
	action     TEXT NOT NULL DEFAULT '',
	actor      TEXT NOT NULL DEFAULT '',
	verdict    TEXT,
	version    INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL
);
CREATE INDEX changes_project ON changes(project, seq);

-- Counters a list shows on every row, kept by the database itself so that
-- no write path can forget them.
CREATE TRIGGER comments_count_ai AFTER INSERT ON comments BEGIN
	UPDATE issues SET comment_count = comment_count + 1,
		last_verdict = coalesce(NEW.verdict, last_verdict)
	WHERE id = NEW.issue_id;
END;
CREATE TRIGGER comments_count_ad AFTER DELETE ON comments BEGIN
	UPDATE issues SET comment_count = comment_count - 1,
		last_verdict = (SELECT verdict FROM comments WHERE issue_id = OLD.issue_id AND verdict IS NOT NULL ORDER BY id DESC LIMIT 1)
	WHERE id = OLD.issue_id;
END;
CREATE TRIGGER comments_count_au AFTER UPDATE OF issue_id, verdict ON comments BEGIN
	UPDATE issues SET
		comment_count = (SELECT count(*) FROM comments WHERE issue_id = issues.id),
		last_verdict = (SELECT verdict FROM comments WHERE issue_id = issues.id AND verdict IS NOT NULL ORDER BY id DESC LIMIT 1)
	WHERE id IN (OLD.issue_id, NEW.issue_id);
END;
CREATE TRIGGER attachments_count_ai AFTER INSERT ON attachments BEGIN
	UPDATE issues SET attachment_count = attachment_count + 1 WHERE id = NEW.issue_id;
END;
CREATE TRIGGER attachments_count_ad AFTER DELETE ON attachments BEGIN
	UPDATE issues SET attachment_count = attachment_count - 1 WHERE id = OLD.issue_id;
END;
CREATE TRIGGER attachments_count_au AFTER UPDATE OF issue_id ON attachments BEGIN
	UPDATE issues SET attachment_count = (SELECT count(*) FROM attachments WHERE issue_id = issues.id)
	WHERE id IN (OLD.issue_id, NEW.issue_id);
END;
CREATE TRIGGER issues_children_ai AFTER INSERT ON issues WHEN NEW.parent_id IS NOT NULL BEGIN
	UPDATE issues SET
		child_count = (SELECT count(*) FROM issues c WHERE c.parent_id = issues.id AND c.merged_into IS NULL),
		child_done = (SELECT count(*) FROM issues c WHERE c.parent_id = issues.id AND c.merged_into IS NULL AND c.status IN ('passed', 'closed'))
	WHERE id = NEW.parent_id;
END;
CREATE TRIGGER issues_children_au AFTER UPDATE OF parent_id, status, merged_into ON issues
WHEN OLD.parent_id IS NOT NULL OR NEW.parent_id IS NOT NULL BEGIN
	UPDATE issues SET
		child_count = (SELECT count(*) FROM issues c WHERE c.parent_id = issues.id AND c.merged_into IS NULL),
		child_done = (SELECT count(*) FROM issues c WHERE c.parent_id = issues.id AND c.merged_into IS NULL AND c.status IN ('passed', 'closed'))
	WHERE id IN (OLD.parent_id, NEW.parent_id);
END;
CREATE TRIGGER issues_children_ad AFTER DELETE ON issues WHEN OLD.parent_id IS NOT NULL BEGIN
	UPDATE issues SET
		child_count = (SELECT count(*) FROM issues c WHERE c.parent_id = issues.id AND c.merged_into IS NULL),
		child_done = (SELECT count(*) FROM issues c WHERE c.parent_id = issues.id AND c.merged_into IS NULL AND c.status IN ('passed', 'closed'))
	WHERE id = OLD.parent_id;
END;
`,

	// 2: a covering index of every field a list shows, so that loading a
	// project's list reads a few index pages instead of every row with its
	// body.
	`
CREATE INDEX issues_list ON issues(project_id, number, title, kind, status, priority, area, tags, location, seed,
	source, external_ref, size, milestone, build, plan_done, plan_total, parent_id, merged_into, comment_count,
	attachment_count, last_verdict, child_count, child_done, created_at, updated_at, closed_at);
`,

	// 3: agent sessions as the server's tracker last saw them, their recent
	// events, the provider ids that lead to them, and the issues they touched.
	`
-- session is the tracker's record id; snapshot is the whole session as
-- JSON, and the columns beside it are what queries filter on.
CREATE TABLE agent_sessions (
	id          INTEGER PRIMARY KEY,
	session     TEXT NOT NULL UNIQUE,
	client      TEXT NOT NULL,
	provider_id TEXT NOT NULL,
	parent      TEXT NOT NULL DEFAULT '',
	project     TEXT NOT NULL DEFAULT '',
	cwd         TEXT NOT NULL DEFAULT '',
	state       TEXT NOT NULL,
	since       TEXT NOT NULL,
	started_at  TEXT NOT NULL,
	updated_at  TEXT NOT NULL,
	snapshot    TEXT NOT NULL
);
CREATE INDEX agent_sessions_updated ON agent_sessions(updated_at);

-- Every provider session id a record has had (/clear and /resume move it),
-- so that a caller holding one finds the record.
CREATE TABLE agent_session_keys (
	client      TEXT NOT NULL,
	provider_id TEXT NOT NULL,
	session_id  INTEGER NOT NULL REFERENCES agent_sessions(id) ON DELETE CASCADE,
	PRIMARY KEY (client, provider_id)
);
CREATE INDEX agent_session_keys_session ON agent_session_keys(session_id);

-- A session's recent events, raw payloads included (capped); the writer
-- keeps the last few hundred per session.
CREATE TABLE agent_events (
	id         INTEGER PRIMARY KEY,
	session_id INTEGER NOT NULL REFERENCES agent_sessions(id) ON DELETE CASCADE,
	client     TEXT NOT NULL,
	at         TEXT NOT NULL,
	kind       TEXT NOT NULL,
	source     TEXT NOT NULL,
	late       INTEGER NOT NULL DEFAULT 0,
	event      TEXT NOT NULL
);
CREATE INDEX agent_events_session ON agent_events(session_id, id);
CREATE INDEX agent_events_client ON agent_events(client, source, at);

-- An issue an agent touched through desk's MCP tools. session_id stays NULL
-- until the session behind the call is known: the MCP server records what it
-- knows (client, provider session id, folder, time) and the server matches.
CREATE TABLE agent_session_issues (
	id          INTEGER PRIMARY KEY,
	session_id  INTEGER REFERENCES agent_sessions(id) ON DELETE CASCADE,
	client      TEXT NOT NULL DEFAULT '',
	provider_id TEXT NOT NULL DEFAULT '',
	cwd         TEXT NOT NULL DEFAULT '',
	project     TEXT NOT NULL,
	issue       TEXT NOT NULL,
	at          TEXT NOT NULL
);
CREATE INDEX agent_session_issues_session ON agent_session_issues(session_id);
CREATE INDEX agent_session_issues_open ON agent_session_issues(id) WHERE session_id IS NULL;
`,

	// 4: a project's commands by id, for its newest command and the
	// recent list, which the queue index does not order.
	`
CREATE INDEX commands_project ON commands(project_id, id);
`,

	// 5: a list's fields packed into one indexed text (headExpr), which
	// replaces the covering index of migration 2. Reading a project then
	// costs one column per issue instead of twenty-eight, and the packing
	// is done once per write instead of once per read. A change to headExpr
	// needs a migration that drops and makes this index again.
	`
DROP INDEX issues_list;
CREATE INDEX issues_head ON issues(project_id, ` + headExpr + `);
`,

	// 6: an issue's attachments by comment, so that the files of an issue's
	// newest comments are found without reading every file of the issue.
	`
CREATE INDEX attachments_issue_comment ON attachments(issue_id, comment_id);
`,

	claimsMigration,
	pairsMigration,
	migrationSessions,
	identityMigration,
	codeMigration,
}

// migrate brings the schema up to date. The check outside a transaction
// keeps the common case (nothing to do) free of the write lock; the write
// transaction checks again, so two processes opening an older file at once
// migrate it once.
func (db *DB) migrate(ctx context.Context) error {
	// A desk already up to date, the common case, is recognised on the read
	// pool: a command that only reads then never opens the write
	// connection, and every connection parses the whole schema as it opens.
	// Anything else (a new file, an old schema, an error) is settled on the
	// write connection.
	if v, err := schemaVersion(ctx, db.read); err == nil && v == SchemaVersion {
		if ok, err := hasSearchIndex(ctx, db.read); err == nil && ok {
			return nil
		}
	}
	v, err := schemaVersion(ctx, db.write)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("this desk was written by a newer desk (schema %d, this one knows %d): update desk", v, SchemaVersion)
	}
	if v == SchemaVersion {
		return db.ensureSearchIndex(ctx)
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if v, err = schemaVersion(ctx, tx); err != nil {
		return err
	}
	for i := v; i < SchemaVersion; i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrate to schema %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return db.ensureSearchIndex(ctx)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
