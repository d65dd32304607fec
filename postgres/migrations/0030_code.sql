-- The code's tables: repositories, the indexed changes (each row made of
-- its object alone, so the table can be made again from the objects), the
-- ref of main moved by compare-and-swap on its revision, the dense log of
-- landings, the open changes of work folders, and the map of git commits.
-- Ids are 32-byte bytea; times are text in desk's one layout.

CREATE TABLE code_repos (
	id         bigserial PRIMARY KEY,
	owner      text NOT NULL,
	name       text NOT NULL,
	project    text NOT NULL DEFAULT '',
	created_at text NOT NULL,
	UNIQUE (owner, name)
);

-- parents: the parents' ids, 32 bytes each, first parent first.
CREATE TABLE code_changes (
	repo_id    bigint NOT NULL REFERENCES code_repos(id),
	id         bytea NOT NULL,
	tree       bytea NOT NULL,
	parents    bytea NOT NULL,
	author     text NOT NULL,
	time       text NOT NULL,
	message    text NOT NULL,
	intents    text NOT NULL DEFAULT '',
	generation bigint NOT NULL,
	PRIMARY KEY (repo_id, id)
);

-- The issues each change names, for the log of an issue.
CREATE TABLE code_change_intents (
	repo_id bigint NOT NULL,
	issue   text NOT NULL,
	change  bytea NOT NULL,
	PRIMARY KEY (repo_id, issue, change)
);

CREATE TABLE code_refs (
	repo_id bigint NOT NULL REFERENCES code_repos(id),
	name    text NOT NULL,
	head    bytea NOT NULL,
	rev     bigint NOT NULL,
	PRIMARY KEY (repo_id, name)
);

-- One row per landing, oldest first; seq is dense per repository, and a
-- submitted change lands once, so a retry finds its entry.
CREATE TABLE change_log (
	repo_id   bigint NOT NULL REFERENCES code_repos(id),
	seq       bigint NOT NULL,
	change    bytea NOT NULL,
	submitted bytea NOT NULL,
	rebased   boolean NOT NULL DEFAULT false,
	landed_by text NOT NULL,
	landed_at text NOT NULL,
	PRIMARY KEY (repo_id, seq),
	UNIQUE (repo_id, submitted)
);
CREATE INDEX change_log_change ON change_log(repo_id, change);

-- The open change of each work folder: its newest change that has not
-- landed, and the paths it touches (a JSON list).
CREATE TABLE code_open_changes (
	repo_id   bigint NOT NULL REFERENCES code_repos(id),
	workspace text NOT NULL,
	change    bytea NOT NULL,
	author    text NOT NULL,
	intents   text NOT NULL DEFAULT '',
	paths     text NOT NULL,
	sent_at   text NOT NULL,
	PRIMARY KEY (repo_id, workspace)
);
CREATE INDEX code_open_changes_change ON code_open_changes(repo_id, change);
CREATE INDEX code_open_changes_sent ON code_open_changes(repo_id, sent_at);

-- git commits and the changes made of them (import) or that made them
-- (export); one commit may hold several changes.
CREATE TABLE code_git_commits (
	repo_id    bigint NOT NULL REFERENCES code_repos(id),
	git_commit text NOT NULL,
	change     bytea NOT NULL,
	PRIMARY KEY (repo_id, git_commit, change),
	UNIQUE (repo_id, change)
);
