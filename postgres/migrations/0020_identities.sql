-- Who may use the team server's API: people and agents, the hashes of
-- their tokens (several per identity, each revoked on its own), and their
-- grants of rights on a repository, a project or everything. access is
-- the granted right ("right" is a word of SQL). The token itself is never
-- stored, only its SHA-256.

CREATE TABLE identities (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name       text NOT NULL UNIQUE,
	kind       text NOT NULL CHECK (kind IN ('person', 'agent')),
	created_at text NOT NULL
);

CREATE TABLE identity_tokens (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	identity_id bigint NOT NULL REFERENCES identities(id),
	token_hash  text NOT NULL UNIQUE,
	label       text NOT NULL DEFAULT '',
	created_at  text NOT NULL,
	revoked_at  text
);
CREATE INDEX identity_tokens_identity ON identity_tokens(identity_id);

CREATE TABLE identity_grants (
	identity_id bigint NOT NULL REFERENCES identities(id),
	scope       text NOT NULL CHECK (scope IN ('repo', 'project', 'all')),
	target      text NOT NULL,
	access      text NOT NULL CHECK (access IN ('read', 'write', 'merge', 'admin')),
	created_at  text NOT NULL,
	PRIMARY KEY (identity_id, scope, target, access)
);
