-- The work: projects, issues with their comments, files and timeline, game
-- commands, handoffs, and the change feed. Times are text in desk's one
-- layout (UTC, milliseconds, fixed width), so that comparing the text
-- compares the times, as in the embedded store; JSON is text, so that what
-- was written is what is read back, byte for byte.

CREATE TABLE meta (
	key   text PRIMARY KEY,
	value text NOT NULL
);

CREATE TABLE projects (
	id             bigserial PRIMARY KEY,
	slug           text NOT NULL UNIQUE,
	name           text NOT NULL,
	prefix         text NOT NULL UNIQUE,
	next_number    integer NOT NULL DEFAULT 1,
	default_seed   bigint,
	notify         text NOT NULL DEFAULT '{"comments":true,"verdicts":true,"reports":true,"status":true}',
	lead           text,
	build          text,
	builds_count   integer NOT NULL DEFAULT 0,
	builds_enabled boolean NOT NULL DEFAULT false,
	created_at     text NOT NULL,
	updated_at     text NOT NULL
);

-- The search words of desk's text search configuration: English stems,
-- no stop words (a search for "the" finds what holds "the").
CREATE TEXT SEARCH DICTIONARY desk_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION desk_search (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION desk_search
	ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
	WITH desk_stem;

CREATE TABLE issues (
	id               bigserial PRIMARY KEY,
	project_id       bigint NOT NULL REFERENCES projects(id),
	number           integer NOT NULL,
	title            text NOT NULL,
	body             text NOT NULL DEFAULT '',
	kind             text NOT NULL,
	status           text NOT NULL,
	priority         text NOT NULL,
	area             text NOT NULL DEFAULT '',
	tags             text NOT NULL DEFAULT '[]',
	location         text NOT NULL DEFAULT '{}',
	seed             bigint,
	source           text NOT NULL,
	external_ref     text NOT NULL DEFAULT '',
	size             text NOT NULL DEFAULT '',
	milestone        text NOT NULL DEFAULT '',
	build            text,
	plan             text NOT NULL DEFAULT '{}',
	plan_done        integer NOT NULL DEFAULT 0,
	plan_total       integer NOT NULL DEFAULT 0,
	parent_id        bigint REFERENCES issues(id) ON DELETE SET NULL,
	merged_into      bigint REFERENCES issues(id),
	comment_count    integer NOT NULL DEFAULT 0,
	attachment_count integer NOT NULL DEFAULT 0,
	last_verdict     text,
	child_count      integer NOT NULL DEFAULT 0,
	child_done       integer NOT NULL DEFAULT 0,
	created_at       text NOT NULL,
	updated_at       text NOT NULL,
	closed_at        text,
	-- The search index: the words of the title, the details (id, area,
	-- tags, reference, milestone, place, commands) and the body, split as
	-- desk splits text (desk.SearchWords) and stemmed by desk_search.
	title_words      tsvector NOT NULL DEFAULT ''::tsvector,
	details_words    tsvector NOT NULL DEFAULT ''::tsvector,
	body_words       tsvector NOT NULL DEFAULT ''::tsvector,
	UNIQUE (project_id, number)
);
CREATE INDEX issues_project_status ON issues(project_id, status);
CREATE INDEX issues_project_ref ON issues(project_id, external_ref);
CREATE INDEX issues_parent ON issues(parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX issues_merged ON issues(merged_into) WHERE merged_into IS NOT NULL;
CREATE INDEX issues_title_words ON issues USING gin (title_words);
CREATE INDEX issues_details_words ON issues USING gin (details_words);
CREATE INDEX issues_body_words ON issues USING gin (body_words);

CREATE TABLE comments (
	id          bigserial PRIMARY KEY,
	issue_id    bigint NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	author      text NOT NULL,
	text        text NOT NULL DEFAULT '',
	verdict     text,
	created_at  text NOT NULL,
	merged_from bigint,
	words       tsvector NOT NULL DEFAULT ''::tsvector
);
CREATE INDEX comments_issue ON comments(issue_id, id);
CREATE INDEX comments_words ON comments USING gin (words);

-- An attachment's bytes are in the object store under key, written before
-- the row and removed after it.
CREATE TABLE attachments (
	id          bigserial PRIMARY KEY,
	issue_id    bigint NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	comment_id  bigint REFERENCES comments(id) ON DELETE SET NULL,
	filename    text NOT NULL,
	mime        text NOT NULL,
	size        bigint NOT NULL,
	key         text NOT NULL,
	created_at  text NOT NULL,
	merged_from bigint
);
CREATE INDEX attachments_issue ON attachments(issue_id, comment_id, id);

CREATE TABLE activity (
	id          bigserial PRIMARY KEY,
	issue_id    bigint NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	actor       text NOT NULL,
	action      text NOT NULL,
	detail      text NOT NULL DEFAULT '{}',
	created_at  text NOT NULL,
	merged_from bigint
);
CREATE INDEX activity_issue ON activity(issue_id, id);

CREATE TABLE commands (
	id           bigserial PRIMARY KEY,
	project_id   bigint NOT NULL REFERENCES projects(id),
	issue_id     bigint REFERENCES issues(id) ON DELETE SET NULL,
	command      text NOT NULL,
	created_by   text NOT NULL DEFAULT 'owner',
	created_at   text NOT NULL,
	expires_at   text NOT NULL,
	delivered_at text,
	client       text
);
CREATE INDEX commands_pending ON commands(project_id, id) WHERE delivered_at IS NULL;
CREATE INDEX commands_project ON commands(project_id, id);
CREATE INDEX commands_issue ON commands(issue_id, id) WHERE issue_id IS NOT NULL;

CREATE TABLE handoffs (
	id         bigserial PRIMARY KEY,
	project_id bigint NOT NULL REFERENCES projects(id),
	version    integer NOT NULL,
	markdown   text NOT NULL,
	author     text NOT NULL,
	note       text NOT NULL DEFAULT '',
	created_at text NOT NULL,
	UNIQUE (project_id, version)
);

-- The change feed, the truth that every replica's live streams follow:
-- rows are appended under the writers' lock at the end of each write, so
-- seq grows in commit order and a reader that resumes after a seq misses
-- nothing. project and issue are text, so that a row still names a
-- deleted issue.
CREATE TABLE changes (
	seq        bigserial PRIMARY KEY,
	project    text NOT NULL DEFAULT '',
	issue_id   bigint,
	issue      text,
	type       text NOT NULL,
	ref_id     bigint NOT NULL DEFAULT 0,
	action     text NOT NULL DEFAULT '',
	actor      text NOT NULL DEFAULT '',
	verdict    text,
	version    integer NOT NULL DEFAULT 0,
	created_at text NOT NULL
);
CREATE INDEX changes_project ON changes(project, seq);
CREATE INDEX changes_created ON changes(created_at);

-- Counters a list shows on every row, kept by the database itself so that
-- no write path can forget them.
CREATE FUNCTION desk_comment_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE issues i SET
		comment_count = (SELECT count(*) FROM comments c WHERE c.issue_id = i.id),
		last_verdict = (SELECT c.verdict FROM comments c WHERE c.issue_id = i.id AND c.verdict IS NOT NULL ORDER BY c.id DESC LIMIT 1)
	WHERE i.id IN (SELECT issue_id FROM changed_rows);
	RETURN NULL;
END $$;
CREATE TRIGGER comments_count_ai AFTER INSERT ON comments REFERENCING NEW TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_comment_counts();
CREATE TRIGGER comments_count_ad AFTER DELETE ON comments REFERENCING OLD TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_comment_counts();
CREATE TRIGGER comments_count_aun AFTER UPDATE ON comments REFERENCING NEW TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_comment_counts();
CREATE TRIGGER comments_count_auo AFTER UPDATE ON comments REFERENCING OLD TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_comment_counts();

CREATE FUNCTION desk_attachment_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE issues i SET attachment_count = (SELECT count(*) FROM attachments a WHERE a.issue_id = i.id)
	WHERE i.id IN (SELECT issue_id FROM changed_rows);
	RETURN NULL;
END $$;
CREATE TRIGGER attachments_count_ai AFTER INSERT ON attachments REFERENCING NEW TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_attachment_counts();
CREATE TRIGGER attachments_count_ad AFTER DELETE ON attachments REFERENCING OLD TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_attachment_counts();
CREATE TRIGGER attachments_count_aun AFTER UPDATE ON attachments REFERENCING NEW TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_attachment_counts();
CREATE TRIGGER attachments_count_auo AFTER UPDATE ON attachments REFERENCING OLD TABLE AS changed_rows
	FOR EACH STATEMENT EXECUTE FUNCTION desk_attachment_counts();

-- A parent's counts of its children, merged ones left out.
CREATE FUNCTION desk_child_counts(parent bigint) RETURNS void LANGUAGE sql AS $$
	UPDATE issues SET
		child_count = (SELECT count(*) FROM issues c WHERE c.parent_id = parent AND c.merged_into IS NULL),
		child_done = (SELECT count(*) FROM issues c WHERE c.parent_id = parent AND c.merged_into IS NULL AND c.status IN ('passed', 'closed'))
	WHERE id = parent;
$$;
CREATE FUNCTION desk_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		PERFORM desk_child_counts(NEW.parent_id);
	ELSIF TG_OP = 'DELETE' THEN
		PERFORM desk_child_counts(OLD.parent_id);
	ELSE
		IF OLD.parent_id IS NOT NULL THEN
			PERFORM desk_child_counts(OLD.parent_id);
		END IF;
		IF NEW.parent_id IS NOT NULL AND NEW.parent_id IS DISTINCT FROM OLD.parent_id THEN
			PERFORM desk_child_counts(NEW.parent_id);
		END IF;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER issues_children_ai AFTER INSERT ON issues FOR EACH ROW WHEN (NEW.parent_id IS NOT NULL)
	EXECUTE FUNCTION desk_children();
CREATE TRIGGER issues_children_au AFTER UPDATE OF parent_id, status, merged_into ON issues FOR EACH ROW
	WHEN (OLD.parent_id IS NOT NULL OR NEW.parent_id IS NOT NULL) EXECUTE FUNCTION desk_children();
CREATE TRIGGER issues_children_ad AFTER DELETE ON issues FOR EACH ROW WHEN (OLD.parent_id IS NOT NULL)
	EXECUTE FUNCTION desk_children();
