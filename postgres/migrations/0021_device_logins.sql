-- The device logins of RFC 8628: a pair of codes that waits for a signed-in
-- person to approve it. The device code is the polling client's secret and
-- is kept only as its SHA-256; a login's token is made at the poll that
-- takes it, so no token is ever stored here. A user code is unique among
-- the logins of the last day, and older rows are dropped as new ones come.

CREATE TABLE device_logins (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	device_hash  text NOT NULL UNIQUE,
	user_code    text NOT NULL UNIQUE,
	client_id    text NOT NULL,
	created_at   text COLLATE "C" NOT NULL,
	expires_at   text COLLATE "C" NOT NULL,
	poll_every   integer NOT NULL,
	last_poll_at text,
	identity     text,
	approved_by  text,
	denied       boolean NOT NULL DEFAULT false,
	done         boolean NOT NULL DEFAULT false
);
