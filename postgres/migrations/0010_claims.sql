-- The claims on issues: one row per issue at most, written only by the
-- one statement of ClaimIssue. Closing, passing or merging an issue ends
-- its claim (the triggers), and deleting it takes the claim with it.
-- Times compare as text in the C collation: desk's layout is fixed width,
-- so the text's order is the time's.

CREATE TABLE issue_claims (
	issue_id   bigint PRIMARY KEY REFERENCES issues(id) ON DELETE CASCADE,
	project_id bigint NOT NULL REFERENCES projects(id),
	issue_key  text NOT NULL,
	holder     text NOT NULL,
	claimed_at text COLLATE "C" NOT NULL,
	expires_at text COLLATE "C" NOT NULL
);
CREATE INDEX issue_claims_project ON issue_claims(project_id, expires_at);

CREATE FUNCTION desk_claim_end() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM issue_claims WHERE issue_id = NEW.id;
	RETURN NULL;
END $$;
CREATE TRIGGER issue_claims_end AFTER UPDATE OF status ON issues FOR EACH ROW
	WHEN (NEW.status IN ('passed', 'closed')) EXECUTE FUNCTION desk_claim_end();
CREATE TRIGGER issue_claims_merged AFTER UPDATE OF merged_into ON issues FOR EACH ROW
	WHEN (NEW.merged_into IS NOT NULL) EXECUTE FUNCTION desk_claim_end();
