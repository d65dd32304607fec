-- The orders a list pages through most, within a project: the last
-- changed first (the triage's and the updated sort's tie-break, and the
-- since filter) and the newest or oldest first. Times compare as text in
-- the C collation, as the list's queries compare them.
CREATE INDEX issues_project_updated ON issues (project_id, (updated_at COLLATE "C"));
CREATE INDEX issues_project_created ON issues (project_id, (created_at COLLATE "C"));
-- The area and milestone facets filter on the folded text.
CREATE INDEX issues_project_area ON issues (project_id, lower(area));
