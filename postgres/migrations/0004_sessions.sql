-- The records of managed sessions: the agents and shells a desk launched
-- in terminals of its own (package session), with the embedded desk's
-- columns, so that a desk moved in keeps its rows as they are.
CREATE TABLE managed_sessions (
	"row"       bigserial PRIMARY KEY,
	id          text NOT NULL UNIQUE,
	kind        text NOT NULL,
	name        text NOT NULL DEFAULT '',
	cwd         text NOT NULL,
	project     text NOT NULL DEFAULT '',
	command     text NOT NULL DEFAULT '[]',
	args        text NOT NULL DEFAULT '[]',
	pid         integer NOT NULL DEFAULT 0,
	state       text NOT NULL,
	exit_code   integer,
	exit_reason text NOT NULL DEFAULT '',
	started_at  text COLLATE "C" NOT NULL,
	ended_at    text NOT NULL DEFAULT '',
	resume_id   text NOT NULL DEFAULT '',
	generation  bigint NOT NULL DEFAULT 1,
	bypass      boolean NOT NULL DEFAULT false,
	profile     text NOT NULL DEFAULT '',
	hooks       text NOT NULL DEFAULT '',
	note        text NOT NULL DEFAULT '',
	updated_at  text NOT NULL
);
CREATE INDEX managed_sessions_state ON managed_sessions(state, started_at);
