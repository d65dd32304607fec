package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"desk"
)

// row is an issue as stored: the domain issue plus the row ids that the
// domain names by key. Reads of one issue and every write work on rows;
// the index holds heads (see head).
type row struct {
	desk.Issue
	rowid     int64
	projectID int64
	prefix    string
	parentID  int64 // 0: none
	mergedID  int64 // 0: not merged
	seed      *int64
}

// millis reads a stored time (desk.TimeLayout) as milliseconds since 1970;
// a time it cannot read sorts as the earliest. Every row of a list is read
// this way, so the fixed layout is read by hand rather than by time.Parse.
func millis(s string) int64 {
	if len(s) != len(desk.TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		t, err := time.Parse(desk.TimeLayout, s)
		if err != nil {
			return 0
		}
		return t.UnixMilli()
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, sec, ms := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2), num(20, 3)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || mi < 0 || sec < 0 || ms < 0 {
		return 0
	}
	return (daysFromCivil(y, mo, d)*86400+int64(h*3600+mi*60+sec))*1000 + int64(ms)
}

// daysFromCivil counts the days from 1970-01-01 to a date of the Gregorian
// calendar.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// decodeTags reads a row's stored tags, a JSON array of strings.
func decodeTags(raw string) []string {
	if raw == "" || raw == "[]" {
		return []string{}
	}
	if tags, ok := plainStrings(raw); ok {
		return tags
	}
	var tags []string
	if json.Unmarshal([]byte(raw), &tags) != nil || tags == nil {
		return []string{}
	}
	return tags
}

// decodeLocation reads a row's stored location. The common one, commands
// with their labels and nothing else, is read by hand; anything else
// (coordinates, a seed, extra keys, escapes) goes through encoding/json.
func decodeLocation(raw string) desk.Location {
	if l, ok := plainLocation(raw); ok {
		return l
	}
	var l desk.Location
	_ = json.Unmarshal([]byte(raw), &l)
	return l
}

// plainLocation reads a location object without spaces whose keys are
// among locationKeys, each once, with plain strings (see plainString) and
// numbers (see plainNumber); anything else (extra, null, a key spelled in
// another case) is left to encoding/json.
func plainLocation(raw string) (desk.Location, bool) {
	var l desk.Location
	rest, ok := plainFields(raw, locationKeys, func(i int, s string) (string, bool) {
		var ok bool
		switch locationKeys[i] {
		case "command":
			l.Command, s, ok = plainString(s)
		case "commands":
			l.Commands, s, ok = plainCommands(s)
		case "seed":
			l.Seed, s, ok = plainInt(s)
		case "x":
			l.X, s, ok = plainFloat(s)
		case "y":
			l.Y, s, ok = plainFloat(s)
		case "z":
			l.Z, s, ok = plainFloat(s)
		case "yaw":
			l.Yaw, s, ok = plainFloat(s)
		case "pitch":
			l.Pitch, s, ok = plainFloat(s)
		case "place":
			l.Place, s, ok = plainString(s)
		case "time":
			l.Time, s, ok = plainString(s)
		case "weather":
			l.Weather, s, ok = plainString(s)
		case "action":
			l.Action, s, ok = plainString(s)
		}
		return s, ok
	})
	return l, ok && rest == ""
}

var locationKeys = []string{"command", "commands", "seed", "x", "y", "z", "yaw", "pitch", "place", "time", "weather", "action"}

// plainInt reads an integer as encoding/json reads one into an int64.
func plainInt(s string) (*int64, string, bool) {
	n, rest, ok := plainNumber(s)
	if !ok {
		return nil, s, false
	}
	v, err := strconv.ParseInt(n, 10, 64)
	return &v, rest, err == nil
}

// plainFloat reads a number as encoding/json reads one into a float64.
func plainFloat(s string) (*float64, string, bool) {
	n, rest, ok := plainNumber(s)
	if !ok {
		return nil, s, false
	}
	v, err := strconv.ParseFloat(n, 64)
	return &v, rest, err == nil
}

// plainNumber reads a JSON number from the start of s, as its text, and
// returns what follows it.
func plainNumber(s string) (string, string, bool) {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return "", s, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return "", s, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return "", s, false
		}
	}
	return s[:i], s[i:], true
}

// plainCommands reads [{"command":"…","label":"…"},…] from the start of s,
// returning what follows it.
func plainCommands(s string) ([]desk.LocationCommand, string, bool) {
	out := []desk.LocationCommand{}
	rest, ok := plainArray(s, func(s string) (string, bool) {
		var c desk.LocationCommand
		s, ok := plainStringFields(s, commandKeys, &c.Command, &c.Label)
		out = append(out, c)
		return s, ok
	})
	return out, rest, ok
}

var commandKeys = []string{"command", "label"}

// plainStringFields reads from the start of s an object whose keys are
// among keys, each at most once, with plain strings (see plainString) as
// values: the value of keys[i] goes to dst[i]. It returns what follows the
// object.
func plainStringFields(s string, keys []string, dst ...*string) (string, bool) {
	return plainFields(s, keys, func(i int, s string) (string, bool) {
		var ok bool
		*dst[i], s, ok = plainString(s)
		return s, ok
	})
}

// plainFields reads from the start of s an object whose keys are among
// keys, each at most once (any other reports false): value reads the value
// of keys[i] from the start of s and returns what follows it. It returns
// what follows the object.
func plainFields(s string, keys []string, value func(i int, s string) (string, bool)) (string, bool) {
	var seen uint32
	return plainObject(s, func(key, s string) (string, bool) {
		i := slices.Index(keys, key)
		if i < 0 || seen&(1<<i) != 0 {
			return s, false
		}
		seen |= 1 << i
		return value(i, s)
	})
}

// plainObject reads a JSON object without spaces from the start of s:
// value reads the value of each key from what follows its colon and
// returns what follows the value. It returns what follows the object.
func plainObject(s string, value func(key, s string) (string, bool)) (string, bool) {
	s, ok := strings.CutPrefix(s, "{")
	if !ok {
		return s, false
	}
	if rest, ok := strings.CutPrefix(s, "}"); ok {
		return rest, true
	}
	for {
		var key string
		if key, s, ok = plainString(s); !ok {
			return s, false
		}
		if s, ok = strings.CutPrefix(s, ":"); !ok {
			return s, false
		}
		if s, ok = value(key, s); !ok {
			return s, false
		}
		if rest, ok := strings.CutPrefix(s, "}"); ok {
			return rest, true
		}
		if s, ok = strings.CutPrefix(s, ","); !ok {
			return s, false
		}
	}
}

// plainArray reads a JSON array without spaces from the start of s: elem
// reads each element and returns what follows it. It returns what follows
// the array.
func plainArray(s string, elem func(s string) (string, bool)) (string, bool) {
	s, ok := strings.CutPrefix(s, "[")
	if !ok {
		return s, false
	}
	if rest, ok := strings.CutPrefix(s, "]"); ok {
		return rest, true
	}
	for {
		if s, ok = elem(s); !ok {
			return s, false
		}
		if rest, ok := strings.CutPrefix(s, "]"); ok {
			return rest, true
		}
		if s, ok = strings.CutPrefix(s, ","); !ok {
			return s, false
		}
	}
}

// plainString reads a JSON string that needs no decoding (no escapes, no
// control characters, valid UTF-8) from the start of s, returning it and
// what follows it.
func plainString(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 {
		return "", s, false
	}
	v := s[1 : 1+end]
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == '\\' {
			return "", s, false
		}
	}
	if !utf8.ValidString(v) {
		return "", s, false
	}
	return v, s[end+2:], true
}

// plainStrings reads a JSON array of strings, without spaces, that need no decoding (no
// escapes, no control characters, valid UTF-8), as desk writes tags, with
// the strings sharing raw's bytes. Anything else reports false, for
// encoding/json to read: an overview counts the tags of every issue of a
// project, and json.Unmarshal was most of its time.
func plainStrings(raw string) ([]string, bool) {
	out := []string{}
	rest, ok := plainArray(raw, func(s string) (string, bool) {
		v, s, ok := plainString(s)
		out = append(out, v)
		return s, ok
	})
	return out, ok && rest == ""
}

// issueSelect reads issues with their project, parent and merge target
// keys; a query appends its WHERE clause. With text false the body and the
// plan's steps are left out, for lists.
func issueSelect(text bool) string {
	bodyPlan := "'', '{}'"
	if text {
		bodyPlan = "i.body, i.plan"
	}
	return `SELECT i.id, i.project_id, p.slug, p.prefix, i.number, i.title, ` + bodyPlan + `, i.kind, i.status,
	i.priority, i.area, i.tags, i.location, i.seed, i.source, i.external_ref, i.size, i.milestone, i.build,
	i.plan_done, i.plan_total, i.parent_id, par.number, i.merged_into, mi.number, i.child_count, i.child_done,
	i.comment_count, i.attachment_count, i.last_verdict, i.created_at, i.updated_at, i.closed_at
FROM issues i JOIN projects p ON p.id = i.project_id
LEFT JOIN issues par ON par.id = i.parent_id
LEFT JOIN issues mi ON mi.id = i.merged_into `
}

type scanner interface{ Scan(dest ...any) error }

func scanIssue(s scanner) (*row, error) {
	var (
		r                          row
		tags, loc, plan            string
		build, lastVerdict, closed sql.NullString
		parentID, parentNum        sql.NullInt64
		mergedID, mergedNum, seed  sql.NullInt64
	)
	err := s.Scan(&r.rowid, &r.projectID, &r.Project, &r.prefix, &r.Number, &r.Title, &r.Body, &plan, &r.Kind, &r.Status,
		&r.Priority, &r.Area, &tags, &loc, &seed, &r.Source, &r.ExternalRef, &r.Size, &r.Milestone, &build,
		&r.Progress.Done, &r.Progress.Total, &parentID, &parentNum, &mergedID, &mergedNum, &r.ChildCount, &r.ChildDone,
		&r.CommentCount, &r.AttachmentCount, &lastVerdict, &r.CreatedAt, &r.UpdatedAt, &closed)
	if err != nil {
		return nil, err
	}
	r.ID = desk.IssueKey(r.prefix, r.Number)
	if err := json.Unmarshal([]byte(tags), &r.Tags); err != nil || r.Tags == nil {
		r.Tags = []string{}
	}
	if err := json.Unmarshal([]byte(loc), &r.Location); err != nil {
		r.Location = desk.Location{}
	}
	r.Plan = decodePlan(plan)
	if build.Valid {
		r.Build = decodeBuild(build.String)
	}
	if lastVerdict.Valid {
		r.LastVerdict = &lastVerdict.String
	}
	if closed.Valid {
		r.ClosedAt = &closed.String
	}
	if parentID.Valid {
		r.parentID = parentID.Int64
		k := desk.IssueKey(r.prefix, int(parentNum.Int64))
		r.Parent = &k
	}
	if mergedID.Valid {
		r.mergedID = mergedID.Int64
		k := desk.IssueKey(r.prefix, int(mergedNum.Int64))
		r.MergedInto = &k
	}
	if seed.Valid {
		r.seed = &seed.Int64
	}
	return &r, nil
}

// queryer is what reads need: a read transaction or a write one.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// packedIssueSelect reads what issueSelect(true) reads in eight columns:
// the list's fields packed as the index reads them (headExpr), the body,
// the plan, and the keys' parts. Every call of an agent and every detail
// reads one issue this way, and the driver's cost is per column: the
// thirty-four of issueSelect took twice as long. The derived table is
// flattened into the query by SQLite; it only gives headExpr's bare column
// names one table to mean.
const packedIssueSelect = `SELECT i.id, i.head, i.body, i.plan, p.slug, p.prefix, par.number, mi.number
FROM (SELECT *, ` + headExpr + ` AS head FROM issues) i JOIN projects p ON p.id = i.project_id
LEFT JOIN issues par ON par.id = i.parent_id
LEFT JOIN issues mi ON mi.id = i.merged_into `

// readIssue reads the one issue where selects (a WHERE clause on the
// issue i and its project p), with body and plan. A row whose packed
// fields cannot be cut apart (a text holding the separator) is read
// again field by field.
func readIssue(ctx context.Context, q queryer, where string, args ...any) (*row, error) {
	var (
		id                 int64
		packed, body, plan string
		parentNum, mergNum sql.NullInt64
		names              projNames
		h                  head
	)
	err := q.QueryRowContext(ctx, packedIssueSelect+where, args...).Scan(&id, &packed, &body, &plan, &names.slug, &names.prefix, &parentNum, &mergNum)
	if err != nil {
		return nil, err
	}
	if !newHead(&h, id, packed) {
		return scanIssue(q.QueryRowContext(ctx, issueSelect(true)+where, args...))
	}
	h.proj = &names
	h.parentNumber, h.mergedNumber = int(parentNum.Int64), int(mergNum.Int64)
	r := &row{Issue: h.issue(), rowid: id, mergedID: h.mergedID, projectID: h.projectID, prefix: names.prefix, parentID: h.parentID}
	if seed, ok := h.seed(); ok {
		r.seed = &seed
	}
	r.Body, r.Plan = body, decodePlan(plan)
	return r, nil
}

// issueByKey reads an issue by its key ("MG-12"), with body and plan.
func issueByKey(ctx context.Context, q queryer, key string) (*row, error) {
	prefix, number, err := desk.ParseIssueKey(key)
	if err != nil {
		return nil, err
	}
	r, err := readIssue(ctx, q, `WHERE p.prefix = ? AND i.number = ?`, prefix, number)
	if err == sql.ErrNoRows {
		return nil, notFound("no issue %s", desk.IssueKey(prefix, number))
	}
	if err != nil {
		return nil, fmt.Errorf("read issue %s: %w", key, err)
	}
	return r, nil
}

// issueByRowID reads an issue by its row id.
func issueByRowID(ctx context.Context, q queryer, id int64) (*row, error) {
	r, err := readIssue(ctx, q, `WHERE i.id = ?`, id)
	if err == sql.ErrNoRows {
		return nil, notFound("no issue with row %d", id)
	}
	return r, err
}

// resolve reads an issue by key and follows merges to the issue that holds
// it now; from is the key asked for when it was merged, else "".
func resolve(ctx context.Context, q queryer, key string) (r *row, from string, err error) {
	r, err = issueByKey(ctx, q, key)
	if err != nil {
		return nil, "", err
	}
	for hops := 0; r.mergedID != 0 && hops < 20; hops++ {
		if from == "" {
			from = r.ID
		}
		if r, err = issueByRowID(ctx, q, r.mergedID); err != nil {
			return nil, "", err
		}
	}
	return r, from, nil
}

// projectRow is a project as stored.
type projectRow struct {
	desk.Project
	id         int64
	nextNumber int
}

const projectSelect = `SELECT id, slug, name, prefix, next_number, default_seed, notify, lead, build, builds_count,
	builds_enabled, created_at FROM projects `

func scanProject(s scanner) (*projectRow, error) {
	var (
		p           projectRow
		seed        sql.NullInt64
		notify      string
		lead, build sql.NullString
		count       int
	)
	if err := s.Scan(&p.id, &p.Slug, &p.Name, &p.Prefix, &p.nextNumber, &seed, &notify, &lead, &build, &count,
		&p.BuildsEnabled, &p.CreatedAt); err != nil {
		return nil, err
	}
	p.IssueCount = p.nextNumber - 1
	if seed.Valid {
		p.DefaultSeed = &seed.Int64
	}
	p.Notify = desk.DefaultNotify
	_ = json.Unmarshal([]byte(notify), &p.Notify)
	if lead.Valid && lead.String != "" {
		p.Lead = &lead.String
	}
	if build.Valid && build.String != "" {
		var b desk.Build
		if json.Unmarshal([]byte(build.String), &b) == nil {
			p.Build = &b
		}
	}
	return &p, nil
}

func projectBySlug(ctx context.Context, q queryer, slug string) (*projectRow, error) {
	p, err := scanProject(q.QueryRowContext(ctx, projectSelect+`WHERE slug = ?`, strings.TrimSpace(slug)))
	if err != nil {
		return nil, projectReadError(slug, err)
	}
	return p, nil
}

// projectReadError words the failure to read project slug.
func projectReadError(slug string, err error) error {
	if err == sql.ErrNoRows {
		return notFound("no project %q: list them with desk projects, or create it with desk new-project", slug)
	}
	return fmt.Errorf("read project %s: %w", slug, err)
}

// projectKey reads only the id of project slug, for the reads that need
// nothing else of the project (a list, a handoff): the returned row holds
// the id and the slug. Every list an agent asks for starts here, and the
// whole row (two of its columns JSON) cost three times as much.
func projectKey(ctx context.Context, q queryer, slug string) (*projectRow, error) {
	slug = strings.TrimSpace(slug)
	p := &projectRow{Project: desk.Project{Slug: slug}}
	if err := q.QueryRowContext(ctx, `SELECT id FROM projects WHERE slug = ?`, slug).Scan(&p.id); err != nil {
		return nil, projectReadError(slug, err)
	}
	return p, nil
}

func projectByID(ctx context.Context, q queryer, id int64) (*projectRow, error) {
	p, err := scanProject(q.QueryRowContext(ctx, projectSelect+`WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("read project %d: %w", id, err)
	}
	return p, nil
}

// key returns the key of the issue with the given number in r's project.
func (r *row) key(number int64) string { return desk.IssueKey(r.prefix, int(number)) }

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only domain values with plain fields are stored
	}
	return string(b)
}

func decodePlan(text string) desk.Plan {
	var p desk.Plan
	if text == "" || text == "{}" {
		return p // most issues have no plan
	}
	if p, ok := plainPlan(text); ok {
		return p
	}
	_ = json.Unmarshal([]byte(text), &p)
	return p
}

// plainPlan reads a plan as desk writes it, {"steps":[{"text":…,"state":…,
// "commit":…,"note":…},…],"verification":…,"updated_at":…} with any key
// left out, each once, and plain strings (see plainString); anything else
// reports false, for encoding/json to read. A full list reads the plan of
// every issue it shows.
func plainPlan(raw string) (desk.Plan, bool) {
	var p desk.Plan
	rest, ok := plainFields(raw, planKeys, func(i int, s string) (string, bool) {
		var ok bool
		switch i {
		case 0:
			p.Steps, s, ok = plainSteps(s)
		case 1:
			p.Verification, s, ok = plainString(s)
		default:
			p.UpdatedAt, s, ok = plainString(s)
		}
		return s, ok
	})
	return p, ok && rest == ""
}

var planKeys = []string{"steps", "verification", "updated_at"}

// plainSteps reads a plan's steps from the start of s, returning what
// follows them.
func plainSteps(s string) ([]desk.Step, string, bool) {
	out := []desk.Step{}
	rest, ok := plainArray(s, func(s string) (string, bool) {
		var st desk.Step
		s, ok := plainStringFields(s, stepKeys, &st.Text, &st.State, &st.Commit, &st.Note)
		out = append(out, st)
		return s, ok
	})
	return out, rest, ok
}

var stepKeys = []string{"text", "state", "commit", "note"}
