-- Agent sessions as the tracking server last saw them, their recent
-- events, the provider ids that lead to them, and the issues they touched.

CREATE TABLE agent_sessions (
	id          bigserial PRIMARY KEY,
	session     text NOT NULL UNIQUE,
	client      text NOT NULL,
	provider_id text NOT NULL,
	parent      text NOT NULL DEFAULT '',
	project     text NOT NULL DEFAULT '',
	cwd         text NOT NULL DEFAULT '',
	state       text NOT NULL,
	since       text NOT NULL,
	started_at  text NOT NULL,
	updated_at  text NOT NULL,
	snapshot    text NOT NULL
);
CREATE INDEX agent_sessions_updated ON agent_sessions(updated_at);

CREATE TABLE agent_session_keys (
	client      text NOT NULL,
	provider_id text NOT NULL,
	session_id  bigint NOT NULL REFERENCES agent_sessions(id) ON DELETE CASCADE,
	PRIMARY KEY (client, provider_id)
);
CREATE INDEX agent_session_keys_session ON agent_session_keys(session_id);

CREATE TABLE agent_events (
	id         bigserial PRIMARY KEY,
	session_id bigint NOT NULL REFERENCES agent_sessions(id) ON DELETE CASCADE,
	client     text NOT NULL,
	at         text NOT NULL,
	kind       text NOT NULL,
	source     text NOT NULL,
	late       boolean NOT NULL DEFAULT false,
	event      text NOT NULL
);
CREATE INDEX agent_events_session ON agent_events(session_id, id);
CREATE INDEX agent_events_client ON agent_events(client, source, at);

CREATE TABLE agent_session_issues (
	id          bigserial PRIMARY KEY,
	session_id  bigint REFERENCES agent_sessions(id) ON DELETE CASCADE,
	client      text NOT NULL DEFAULT '',
	provider_id text NOT NULL DEFAULT '',
	cwd         text NOT NULL DEFAULT '',
	project     text NOT NULL,
	issue       text NOT NULL,
	at          text NOT NULL
);
CREATE INDEX agent_session_issues_session ON agent_session_issues(session_id);
CREATE INDEX agent_session_issues_open ON agent_session_issues(id) WHERE session_id IS NULL;
