-- The office view's documents: its layout and the owner's seat choices,
-- each the JSON package office wrote, with the revision it holds. A
-- change replaces its row and appends its feed row in one transaction.

CREATE TABLE office_docs (
	name       text PRIMARY KEY,
	body       text NOT NULL,
	revision   bigint NOT NULL,
	updated_at text NOT NULL
);
