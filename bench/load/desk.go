package load

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"

	_ "modernc.org/sqlite" // the driver the store uses, to read counts
)

// DeskInfo is what the measured desk holds.
type DeskInfo struct {
	Projects     int    `json:"projects"`
	Issues       int    `json:"issues"`
	MainIssues   int    `json:"main_issues"`
	Comments     int    `json:"comments"`
	RichComments int    `json:"rich_comments"`
	Attachments  int    `json:"attachments"`
	Activity     int    `json:"activity"`
	Handoffs     int    `json:"handoffs"`
	Project      string `json:"project"`
	// Detail is the issue the detail requests read: the unmerged issue of
	// the project with the most comments and attachments.
	Detail string `json:"detail"`
	// Area is the project's most common area, for the filtered list.
	Area string `json:"area"`
	// Rich are the project's twenty most commented issues, which the mixed
	// run's agents comment on.
	Rich []string `json:"rich"`
}

// ReadDesk counts a desk's rows and picks the issues the run reads, as
// Pair Desk's driver picked them, straight from the database file.
func ReadDesk(ctx context.Context, data, project string) (*DeskInfo, error) {
	path := filepath.Join(data, "desk.sqlite")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	d := &DeskInfo{Project: project}
	counts := []struct {
		dst *int
		q   string
	}{
		{&d.Projects, `SELECT count(*) FROM projects`},
		{&d.Issues, `SELECT count(*) FROM issues`},
		{&d.Comments, `SELECT count(*) FROM comments`},
		{&d.Attachments, `SELECT count(*) FROM attachments`},
		{&d.Activity, `SELECT count(*) FROM activity`},
		{&d.Handoffs, `SELECT count(*) FROM handoffs`},
	}
	for _, c := range counts {
		if err := db.QueryRowContext(ctx, c.q).Scan(c.dst); err != nil {
			return nil, fmt.Errorf("read %s: %w", data, err)
		}
	}
	var pid int64
	var prefix string
	if err := db.QueryRowContext(ctx, `SELECT id, prefix FROM projects WHERE slug = ?`, project).Scan(&pid, &prefix); err != nil {
		return nil, fmt.Errorf("project %q: %w", project, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*), coalesce(max(comment_count), 0) FROM issues WHERE project_id = ?`, pid).Scan(&d.MainIssues, &d.RichComments); err != nil {
		return nil, err
	}
	var number int
	if err := db.QueryRowContext(ctx, `SELECT number FROM issues WHERE project_id = ? AND merged_into IS NULL
		ORDER BY comment_count + attachment_count DESC, number LIMIT 1`, pid).Scan(&number); err != nil {
		return nil, fmt.Errorf("project %q has no issue to read: %w", project, err)
	}
	d.Detail = fmt.Sprintf("%s-%d", prefix, number)
	if err := db.QueryRowContext(ctx, `SELECT area FROM issues WHERE project_id = ? AND area != ''
		GROUP BY lower(area) ORDER BY count(*) DESC, area LIMIT 1`, pid).Scan(&d.Area); err != nil {
		d.Area = "terrain"
	}
	rows, err := db.QueryContext(ctx, `SELECT number FROM issues WHERE project_id = ? AND merged_into IS NULL
		ORDER BY comment_count DESC, number LIMIT 20`, pid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&number); err != nil {
			return nil, err
		}
		d.Rich = append(d.Rich, fmt.Sprintf("%s-%d", prefix, number))
	}
	return d, rows.Err()
}
