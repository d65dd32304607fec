package sqlite

// pairsMigration adds the pairs: their roster with each member's mailbox
// cursor, the transcript, the mailboxes, notes, tasks, patches (the files
// are in the data folder; the table keeps their seals) and evidence.
// Every table hangs off its pair and goes with it.
const pairsMigration = `
CREATE TABLE pairs (
	id               INTEGER PRIMARY KEY,   -- the pair's name is "p" || id
	project_id       INTEGER NOT NULL REFERENCES projects(id),
	folder           TEXT NOT NULL,
	task             TEXT NOT NULL,
	phase            TEXT NOT NULL,
	mode             TEXT NOT NULL,
	autonomy         TEXT NOT NULL,
	autonomy_source  TEXT NOT NULL,
	round            INTEGER NOT NULL DEFAULT 1,
	writer           TEXT NOT NULL DEFAULT '',
	writer_rationale TEXT NOT NULL DEFAULT '',
	writer_since     TEXT NOT NULL DEFAULT '',
	pinned_writer    TEXT NOT NULL DEFAULT '',
	ok_round         INTEGER NOT NULL DEFAULT 0,
	budget           TEXT NOT NULL DEFAULT '{}',
	status           TEXT NOT NULL,
	created_at       TEXT NOT NULL,
	updated_at       TEXT NOT NULL,
	stopped_at       TEXT
);
CREATE INDEX pairs_project ON pairs(project_id, id);
CREATE INDEX pairs_live ON pairs(status, id);

CREATE TABLE pair_members (
	pair_id    INTEGER NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	role       TEXT NOT NULL,
	position   INTEGER NOT NULL,
	instance_of TEXT NOT NULL DEFAULT '',
	joined_at  TEXT,
	last_seen  TEXT,
	left_at    TEXT,
	session    TEXT NOT NULL DEFAULT '',
	resume_id  TEXT NOT NULL DEFAULT '',
	last_nudge TEXT,
	acked      INTEGER NOT NULL DEFAULT 0,
	ack_token  TEXT NOT NULL DEFAULT '',
	ack_upto   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (pair_id, role)
);

-- The transcript: append-only. detail is a JSON object or NULL.
CREATE TABLE pair_events (
	id      INTEGER PRIMARY KEY AUTOINCREMENT,
	pair_id INTEGER NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	round   INTEGER NOT NULL,
	at      TEXT NOT NULL,
	role    TEXT NOT NULL,
	kind    TEXT NOT NULL,
	rule    TEXT NOT NULL DEFAULT '',
	text    TEXT NOT NULL,
	detail  TEXT
);
CREATE INDEX pair_events_pair ON pair_events(pair_id, id);
CREATE INDEX pair_events_round ON pair_events(pair_id, round, kind);
CREATE INDEX pair_events_at ON pair_events(pair_id, at);

CREATE TABLE pair_letters (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	pair_id  INTEGER NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	from_role TEXT NOT NULL,
	to_role  TEXT NOT NULL,
	body     TEXT NOT NULL,
	at       TEXT NOT NULL,
	event_id INTEGER NOT NULL DEFAULT 0,
	deferred INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX pair_letters_to ON pair_letters(pair_id, to_role, id);
CREATE INDEX pair_letters_deferred ON pair_letters(pair_id, id) WHERE deferred = 1;

-- Notes are appended entry by entry; bytes and lines are kept so that the
-- index of the notes never reads their text.
CREATE TABLE pair_notes (
	id      INTEGER PRIMARY KEY,
	pair_id INTEGER NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	kind    TEXT NOT NULL,
	role    TEXT NOT NULL,
	round   INTEGER NOT NULL,
	text    TEXT NOT NULL,
	bytes   INTEGER NOT NULL,
	lines   INTEGER NOT NULL,
	at      TEXT NOT NULL
);
CREATE INDEX pair_notes_kind ON pair_notes(pair_id, kind, id, bytes, lines, at);

CREATE TABLE pair_tasks (
	pair_id   INTEGER NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	n         INTEGER NOT NULL,
	text      TEXT NOT NULL,
	state     TEXT NOT NULL,
	round     INTEGER NOT NULL,
	added_by  TEXT NOT NULL,
	added_at  TEXT NOT NULL,
	closed_by TEXT NOT NULL DEFAULT '',
	closed_at TEXT,
	reason    TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (pair_id, n)
);
CREATE INDEX pair_tasks_state ON pair_tasks(pair_id, state, n);

CREATE TABLE pair_patches (
	pair_id     INTEGER NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	n           INTEGER NOT NULL,
	path        TEXT NOT NULL DEFAULT '',
	role        TEXT NOT NULL,
	state       TEXT NOT NULL,
	round       INTEGER NOT NULL,
	summary     TEXT NOT NULL DEFAULT '',
	seal        TEXT NOT NULL DEFAULT '',
	size        INTEGER NOT NULL DEFAULT 0,
	files       TEXT NOT NULL DEFAULT '[]',
	note        TEXT NOT NULL DEFAULT '',
	reserved_at TEXT NOT NULL,
	sealed_at   TEXT,
	verified_at TEXT,
	done_at     TEXT,
	reported    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (pair_id, n)
);
CREATE INDEX pair_patches_state ON pair_patches(pair_id, state, n);
CREATE INDEX pair_patches_path ON pair_patches(pair_id, path);

CREATE TABLE pair_evidence (
	id      INTEGER PRIMARY KEY,
	pair_id INTEGER NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	round   INTEGER NOT NULL,
	kind    TEXT NOT NULL,
	text    TEXT NOT NULL,
	passed  INTEGER NOT NULL,
	role    TEXT NOT NULL,
	at      TEXT NOT NULL
);
CREATE INDEX pair_evidence_round ON pair_evidence(pair_id, round, id);
CREATE INDEX pair_evidence_passed ON pair_evidence(pair_id, round, passed);
`
