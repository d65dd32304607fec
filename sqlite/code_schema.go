package sqlite

// codeMigration holds the code's tables: repositories, the indexed changes
// (each row made of its object alone, so the table can be made again from
// the objects), the ref of main moved by compare-and-swap on its
// revision, the dense log of landings, the open changes of work folders,
// and the map of git commits. Ids are 32-byte blobs.
const codeMigration = `
CREATE TABLE code_repos (
	id         INTEGER PRIMARY KEY,
	owner      TEXT NOT NULL,
	name       TEXT NOT NULL,
	project    TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL,
	UNIQUE (owner, name)
);

-- parents: the parents' ids, 32 bytes each, first parent first.
CREATE TABLE code_changes (
	repo_id    INTEGER NOT NULL REFERENCES code_repos(id),
	id         BLOB NOT NULL,
	tree       BLOB NOT NULL,
	parents    BLOB NOT NULL,
	author     TEXT NOT NULL,
	time       TEXT NOT NULL,
	message    TEXT NOT NULL,
	intents    TEXT NOT NULL DEFAULT '',
	generation INTEGER NOT NULL,
	PRIMARY KEY (repo_id, id)
) WITHOUT ROWID;

-- The issues each change names, for the log of an issue.
CREATE TABLE code_change_intents (
	repo_id INTEGER NOT NULL,
	issue   TEXT NOT NULL,
	change  BLOB NOT NULL,
	PRIMARY KEY (repo_id, issue, change)
) WITHOUT ROWID;

CREATE TABLE code_refs (
	repo_id INTEGER NOT NULL REFERENCES code_repos(id),
	name    TEXT NOT NULL,
	head    BLOB NOT NULL,
	rev     INTEGER NOT NULL,
	PRIMARY KEY (repo_id, name)
) WITHOUT ROWID;

-- One row per landing, oldest first; seq is dense per repository, and a
-- submitted change lands once, so a retry finds its entry.
CREATE TABLE change_log (
	repo_id   INTEGER NOT NULL REFERENCES code_repos(id),
	seq       INTEGER NOT NULL,
	change    BLOB NOT NULL,
	submitted BLOB NOT NULL,
	rebased   INTEGER NOT NULL DEFAULT 0,
	landed_by TEXT NOT NULL,
	landed_at TEXT NOT NULL,
	PRIMARY KEY (repo_id, seq),
	UNIQUE (repo_id, submitted)
);
CREATE INDEX change_log_change ON change_log(repo_id, change);

-- The open change of each work folder: its newest change that has not
-- landed, and the paths it touches (a JSON list).
CREATE TABLE code_open_changes (
	repo_id   INTEGER NOT NULL REFERENCES code_repos(id),
	workspace TEXT NOT NULL,
	change    BLOB NOT NULL,
	author    TEXT NOT NULL,
	intents   TEXT NOT NULL DEFAULT '',
	paths     TEXT NOT NULL,
	sent_at   TEXT NOT NULL,
	PRIMARY KEY (repo_id, workspace)
);
CREATE INDEX code_open_changes_change ON code_open_changes(repo_id, change);

-- git commits and the changes made of them (import) or that made them
-- (export); one commit may hold several changes.
CREATE TABLE code_git_commits (
	repo_id    INTEGER NOT NULL REFERENCES code_repos(id),
	git_commit TEXT NOT NULL,
	change     BLOB NOT NULL,
	PRIMARY KEY (repo_id, git_commit, change),
	UNIQUE (repo_id, change)
);
`
