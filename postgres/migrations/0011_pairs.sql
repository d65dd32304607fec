-- The pairs: their roster with each member's mailbox cursor, the
-- transcript, the mailboxes, notes, tasks, patches (the files are in the
-- data folder of whoever keeps them; the table keeps their seals) and
-- evidence. Every table hangs off its pair and goes with it. A pair's
-- name is "p" and its id.

CREATE TABLE pairs (
	id               bigserial PRIMARY KEY,
	project_id       bigint NOT NULL REFERENCES projects(id),
	folder           text NOT NULL,
	task             text NOT NULL,
	phase            text NOT NULL,
	mode             text NOT NULL,
	autonomy         text NOT NULL,
	autonomy_source  text NOT NULL,
	round            integer NOT NULL DEFAULT 1,
	writer           text NOT NULL DEFAULT '',
	writer_rationale text NOT NULL DEFAULT '',
	writer_since     text NOT NULL DEFAULT '',
	pinned_writer    text NOT NULL DEFAULT '',
	ok_round         integer NOT NULL DEFAULT 0,
	budget           text NOT NULL DEFAULT '{}',
	status           text NOT NULL,
	created_at       text NOT NULL,
	updated_at       text NOT NULL,
	stopped_at       text
);
CREATE INDEX pairs_project ON pairs(project_id, id);
CREATE INDEX pairs_live ON pairs(status, id);

CREATE TABLE pair_members (
	pair_id     bigint NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	role        text NOT NULL,
	position    integer NOT NULL,
	instance_of text NOT NULL DEFAULT '',
	joined_at   text,
	last_seen   text,
	left_at     text,
	session     text NOT NULL DEFAULT '',
	resume_id   text NOT NULL DEFAULT '',
	last_nudge  text,
	acked       bigint NOT NULL DEFAULT 0,
	ack_token   text NOT NULL DEFAULT '',
	ack_upto    bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (pair_id, role)
);

-- The transcript: append-only. detail is a JSON object or NULL. at
-- compares as text in the C collation (desk's times are fixed width).
CREATE TABLE pair_events (
	id      bigserial PRIMARY KEY,
	pair_id bigint NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	round   integer NOT NULL,
	at      text COLLATE "C" NOT NULL,
	role    text NOT NULL,
	kind    text NOT NULL,
	rule    text NOT NULL DEFAULT '',
	text    text NOT NULL,
	detail  text
);
CREATE INDEX pair_events_pair ON pair_events(pair_id, id);
CREATE INDEX pair_events_round ON pair_events(pair_id, round, kind);
CREATE INDEX pair_events_at ON pair_events(pair_id, at);

CREATE TABLE pair_letters (
	id        bigserial PRIMARY KEY,
	pair_id   bigint NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	from_role text NOT NULL,
	to_role   text NOT NULL,
	body      text NOT NULL,
	at        text NOT NULL,
	event_id  bigint NOT NULL DEFAULT 0,
	deferred  boolean NOT NULL DEFAULT false
);
CREATE INDEX pair_letters_to ON pair_letters(pair_id, to_role, id);
CREATE INDEX pair_letters_deferred ON pair_letters(pair_id, id) WHERE deferred;

-- Notes are appended entry by entry; bytes and lines are kept so that the
-- index of the notes never reads their text.
CREATE TABLE pair_notes (
	id      bigserial PRIMARY KEY,
	pair_id bigint NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	kind    text NOT NULL,
	role    text NOT NULL,
	round   integer NOT NULL,
	text    text NOT NULL,
	bytes   integer NOT NULL,
	lines   integer NOT NULL,
	at      text COLLATE "C" NOT NULL
);
CREATE INDEX pair_notes_kind ON pair_notes(pair_id, kind, id) INCLUDE (bytes, lines, at);

CREATE TABLE pair_tasks (
	pair_id   bigint NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	n         integer NOT NULL,
	text      text NOT NULL,
	state     text NOT NULL,
	round     integer NOT NULL,
	added_by  text NOT NULL,
	added_at  text NOT NULL,
	closed_by text NOT NULL DEFAULT '',
	closed_at text,
	reason    text NOT NULL DEFAULT '',
	PRIMARY KEY (pair_id, n)
);
CREATE INDEX pair_tasks_state ON pair_tasks(pair_id, state, n);

CREATE TABLE pair_patches (
	pair_id     bigint NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	n           integer NOT NULL,
	path        text NOT NULL DEFAULT '',
	role        text NOT NULL,
	state       text NOT NULL,
	round       integer NOT NULL,
	summary     text NOT NULL DEFAULT '',
	seal        text NOT NULL DEFAULT '',
	size        integer NOT NULL DEFAULT 0,
	files       text NOT NULL DEFAULT '[]',
	note        text NOT NULL DEFAULT '',
	reserved_at text NOT NULL,
	sealed_at   text,
	verified_at text,
	done_at     text,
	reported    boolean NOT NULL DEFAULT false,
	PRIMARY KEY (pair_id, n)
);
CREATE INDEX pair_patches_state ON pair_patches(pair_id, state, n);
CREATE INDEX pair_patches_path ON pair_patches(pair_id, path);

CREATE TABLE pair_evidence (
	id      bigserial PRIMARY KEY,
	pair_id bigint NOT NULL REFERENCES pairs(id) ON DELETE CASCADE,
	round   integer NOT NULL,
	kind    text NOT NULL,
	text    text NOT NULL,
	passed  boolean NOT NULL,
	role    text NOT NULL,
	at      text NOT NULL
);
CREATE INDEX pair_evidence_round ON pair_evidence(pair_id, round, id);
CREATE INDEX pair_evidence_passed ON pair_evidence(pair_id, round, passed);
