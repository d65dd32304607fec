package http

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"desk"
)

func (s *Server) listIssues(w http.ResponseWriter, r *http.Request, p params) error {
	f, err := issueFilter(r)
	if err != nil {
		return err
	}
	l, err := s.store.Issues(r.Context(), p["slug"], f)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, l)
}

// issueFilter reads a list's query parameters.
func issueFilter(r *http.Request) (desk.IssueFilter, error) {
	return ParseIssueFilter(r.URL.Query())
}

// ParseIssueFilter reads a list's query parameters (the inverse of
// IssuesPath): the last value of a repeated key wins and blank values
// count as absent.
func ParseIssueFilter(v url.Values) (desk.IssueFilter, error) {
	get := func(key string) string {
		vals := v[key]
		for i := len(vals) - 1; i >= 0; i-- {
			if s := strings.TrimSpace(vals[i]); s != "" {
				return s
			}
		}
		return ""
	}
	flag := func(key string) bool {
		switch strings.ToLower(get(key)) {
		case "1", "true", "yes", "on":
			return true
		}
		return false
	}
	f := desk.IssueFilter{
		Status: desk.SplitList(get("status")), Kind: desk.SplitList(get("kind")),
		Priority: desk.SplitList(get("priority")), Area: desk.SplitList(get("area")),
		Source: desk.SplitList(get("source")), Milestone: desk.SplitList(get("milestone")),
		Size: desk.SplitList(get("size")), Tag: get("tag"), Q: get("q"), IDs: desk.SplitList(get("id")),
		BoostArea: get("boost_area"), Since: get("since"), Sort: get("sort"),
		Merged: flag("merged"), Unclaimed: flag("unclaimed"), Summary: flag("summary"),
	}
	if ref, ok := v["external_ref"]; ok && len(ref) > 0 {
		s := strings.TrimSpace(ref[len(ref)-1])
		f.ExternalRef = &s
	}
	if s := get("seed"); s != "" {
		seed, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return f, desk.Errorf(desk.Invalid, "seed: %q is not an integer", s)
		}
		f.Seed = &seed
	}
	for key, dst := range map[string]*int{"limit": &f.Limit, "offset": &f.Offset} {
		if s := get(key); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return f, desk.Errorf(desk.Invalid, "%s: %q is not a whole number", key, s)
			}
			*dst = n
		}
	}
	if f.Limit < 0 {
		f.Limit = 1
	}
	return f, f.Normalize()
}

func (s *Server) createIssue(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	author, err := str(m, "author", desk.MaxAuthor*4)
	if err != nil {
		return err
	}
	files, err := decodeFiles(m)
	if err != nil {
		return err
	}
	delete(m, "author")
	f, err := desk.DecodeIssueFields(m)
	if err != nil {
		return err
	}
	is, err := s.store.CreateIssue(r.Context(), p["slug"], f, desk.CreateOptions{Author: author, Attachments: files, Agent: callerIsAgent(r)})
	if err != nil {
		return err
	}
	s.localBuildRef(is.Build)
	return writeJSON(w, r, http.StatusCreated, s.withAgents(is))
}

// decodeFiles reads attachments given as [{filename, mime, data_base64}]
// (the data may carry a data: URL prefix), as one such object, or as
// {attachments: [...]}.
func decodeFiles(m map[string]json.RawMessage) ([]desk.AttachmentInput, error) {
	raw, ok := m["attachments"]
	delete(m, "attachments")
	if !ok || string(raw) == "null" {
		if _, one := m["data_base64"]; one {
			b, _ := json.Marshal(m)
			raw = json.RawMessage("[" + string(b) + "]")
		} else {
			return nil, nil
		}
	}
	var items []struct {
		Filename   string `json:"filename"`
		Mime       string `json:"mime"`
		DataBase64 string `json:"data_base64"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, desk.Errorf(desk.Invalid, "attachments: expected a list of {filename, mime, data_base64}")
	}
	files := make([]desk.AttachmentInput, 0, len(items))
	for i, it := range items {
		data := it.DataBase64
		if strings.HasPrefix(data, "data:") {
			if _, after, ok := strings.Cut(data, ","); ok {
				data = after
			}
		}
		data = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == ' ' {
				return -1
			}
			return r
		}, data)
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(data, "=")); err != nil {
				return nil, desk.Errorf(desk.Invalid, "attachments[%d].data_base64: not valid base64", i)
			}
		}
		files = append(files, desk.AttachmentInput{Filename: it.Filename, Mime: it.Mime, Data: b})
	}
	return files, nil
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, p params) error {
	return s.writeDetail(w, r, http.StatusOK, p["id"])
}

// writeDetail answers with an issue and everything that hangs off it, as
// Pair Desk's clients expect after every issue write.
func (s *Server) writeDetail(w http.ResponseWriter, r *http.Request, status int, id string) error {
	d, err := s.store.Issue(r.Context(), id)
	if err != nil {
		return err
	}
	s.localBuildRef(d.Build)
	return writeJSON(w, r, status, s.withAgents(d))
}

func (s *Server) patchIssue(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	actor, err := str(m, "actor", desk.MaxAuthor*4)
	if err != nil {
		return err
	}
	delete(m, "actor")
	f, err := desk.DecodeIssueFields(m)
	if err != nil {
		return err
	}
	is, err := s.store.UpdateIssue(r.Context(), p["id"], f, actor)
	if err != nil {
		return err
	}
	return s.writeDetail(w, r, http.StatusOK, is.ID)
}

func (s *Server) deleteIssue(w http.ResponseWriter, r *http.Request, p params) error {
	d, err := s.store.Issue(r.Context(), p["id"])
	if err != nil {
		return err
	}
	if d.RedirectedFrom != "" {
		// The merged issue itself is what the caller named.
		if err := s.store.DeleteIssue(r.Context(), d.RedirectedFrom, query(r, "actor")); err != nil {
			return err
		}
		return writeJSON(w, r, http.StatusOK, map[string]string{"deleted": d.RedirectedFrom})
	}
	if err := s.store.DeleteIssue(r.Context(), d.ID, query(r, "actor")); err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]string{"deleted": d.ID})
}

func (s *Server) addComment(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	var in desk.CommentInput
	// The store checks the author's length (desk.CheckAuthor), so that the
	// refusal names the same limit on every surface.
	if in.Author, err = str(m, "author", desk.MaxRequestBody); err != nil {
		return err
	}
	if in.Text, err = str(m, "text", desk.MaxCommentText); err != nil {
		return err
	}
	if in.Verdict, err = str(m, "verdict", 20); err != nil {
		return err
	}
	if in.Attachments, err = decodeFiles(m); err != nil {
		return err
	}
	c, is, err := s.store.AddComment(r.Context(), p["id"], in)
	if err != nil {
		return err
	}
	d, err := s.store.Issue(r.Context(), is.ID)
	if err != nil {
		return err
	}
	s.localBuildRef(d.Build)
	return writeJSON(w, r, http.StatusCreated, commentCreated{c, s.agentsOn(d)})
}

// commentCreated answers a new comment with the comment and the issue as it
// now stands. It writes itself: the issue can carry hundreds of comments, and
// encoding/json would scan all of them again to compact them.
type commentCreated struct {
	comment *desk.Comment
	issue   *desk.IssueDetail
}

// MarshalJSON writes {"comment": ..., "issue": ...}.
func (c commentCreated) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 8192+len(c.issue.Lists)), `{"comment":`...)
	b = c.comment.AppendJSON(b)
	b = append(b, `,"issue":`...)
	b = c.issue.AppendJSON(b)
	return append(b, '}'), nil
}

func (s *Server) addAttachments(w http.ResponseWriter, r *http.Request, p params) error {
	var files []desk.AttachmentInput
	var commentID *int64
	var author string
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		r.Body = http.MaxBytesReader(w, r.Body, desk.MaxRequestBody)
		mr, err := r.MultipartReader()
		if err != nil {
			return desk.Errorf(desk.Invalid, "multipart body: %v", err)
		}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return desk.Errorf(desk.Invalid, "multipart body: %v", err)
			}
			data, err := io.ReadAll(io.LimitReader(part, desk.MaxAttachment+1))
			if err != nil {
				return desk.Errorf(desk.Invalid, "multipart body: %v", err)
			}
			switch {
			case part.FileName() != "":
				files = append(files, desk.AttachmentInput{Filename: part.FileName(), Mime: part.Header.Get("Content-Type"), Data: data})
			case part.FormName() == "comment_id":
				id, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
				if err != nil {
					return desk.Errorf(desk.Invalid, "comment_id: %q is not a number", data)
				}
				commentID = &id
			case part.FormName() == "author":
				author = strings.TrimSpace(string(data))
			}
		}
	} else {
		m, err := readObject(r)
		if err != nil {
			return err
		}
		if author, err = str(m, "author", desk.MaxAuthor*4); err != nil {
			return err
		}
		if raw, ok := m["comment_id"]; ok {
			id, err := desk.DecodeOptInt("comment_id", raw)
			if err != nil {
				return err
			}
			commentID = id
		}
		if files, err = decodeFiles(m); err != nil {
			return err
		}
	}
	as, err := s.store.AddAttachments(r.Context(), p["id"], commentID, files, author)
	if err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusCreated, map[string]any{"attachments": as})
}

func (s *Server) setPlan(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	raw, ok := m["steps"]
	if !ok {
		return desk.Errorf(desk.Invalid, "steps: required, a list of step texts or {text, state, commit, note}")
	}
	steps, err := desk.DecodeSteps(raw)
	if err != nil {
		return err
	}
	var verification *string
	if _, ok := m["verification"]; ok {
		v, err := str(m, "verification", desk.MaxVerification)
		if err != nil {
			return err
		}
		verification = &v
	}
	actor, err := str(m, "actor", desk.MaxAuthor*4)
	if err != nil {
		return err
	}
	is, err := s.store.SetPlan(r.Context(), p["id"], steps, verification, actor)
	if err != nil {
		return err
	}
	return s.writeDetail(w, r, http.StatusOK, is.ID)
}

func (s *Server) updateStep(w http.ResponseWriter, r *http.Request, p params) error {
	n, err := strconv.Atoi(p["n"])
	if err != nil {
		return desk.Errorf(desk.Invalid, "step: %q is not a step number (1 = the first)", p["n"])
	}
	m, err := readObject(r)
	if err != nil {
		return err
	}
	var sp desk.StepPatch
	for key, dst := range map[string]**string{"state": &sp.State, "commit": &sp.Commit, "note": &sp.Note, "text": &sp.Text} {
		if _, ok := m[key]; ok {
			v, err := str(m, key, desk.MaxNote)
			if err != nil {
				return err
			}
			*dst = &v
		}
	}
	actor, err := str(m, "actor", desk.MaxAuthor*4)
	if err != nil {
		return err
	}
	is, err := s.store.UpdateStep(r.Context(), p["id"], n, sp, actor)
	if err != nil {
		return err
	}
	return s.writeDetail(w, r, http.StatusOK, is.ID)
}

func (s *Server) setParent(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	raw, ok := m["parent"]
	if !ok {
		return desk.Errorf(desk.Invalid, "parent: required, the parent's id or null to remove it")
	}
	var parent *string
	if string(raw) != "null" {
		v, err := desk.DecodeString("parent", raw, 40)
		if err != nil {
			return err
		}
		if v = strings.TrimSpace(v); v != "" && !strings.EqualFold(v, "none") {
			parent = &v
		}
	}
	actor, err := str(m, "actor", desk.MaxAuthor*4)
	if err != nil {
		return err
	}
	is, err := s.store.SetParent(r.Context(), p["id"], parent, actor)
	if err != nil {
		return err
	}
	return s.writeDetail(w, r, http.StatusOK, is.ID)
}

func (s *Server) merge(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	var sources []string
	if raw, ok := m["sources"]; ok {
		if err := json.Unmarshal(raw, &sources); err != nil {
			var one string
			if json.Unmarshal(raw, &one) != nil {
				return desk.Errorf(desk.Invalid, "sources: expected a list of issue ids")
			}
			sources = desk.SplitList(one)
		}
	}
	actor, err := str(m, "actor", desk.MaxAuthor*4)
	if err != nil {
		return err
	}
	res, err := s.store.Merge(r.Context(), p["id"], sources, actor)
	if err != nil {
		return err
	}
	res.Issue = s.agentsOn(res.Issue)
	return writeJSON(w, r, http.StatusOK, res)
}

func (s *Server) unmerge(w http.ResponseWriter, r *http.Request, p params) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	actor, err := str(m, "actor", desk.MaxAuthor*4)
	if err != nil {
		return err
	}
	res, err := s.store.Unmerge(r.Context(), p["id"], actor)
	if err != nil {
		return err
	}
	res.Issue = s.agentsOn(res.Issue)
	return writeJSON(w, r, http.StatusOK, res)
}

// inlineTypes are the file types the browser may show in place; anything
// else downloads, so an uploaded page can never run as desk's own.
var inlineTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true, "image/bmp": true,
	"video/mp4": true, "video/webm": true, "text/plain": true, "application/pdf": true,
}

func (s *Server) getAttachment(w http.ResponseWriter, r *http.Request, p params) error {
	id, err := pathInt(p, "id")
	if err != nil {
		return err
	}
	a, f, err := s.store.OpenAttachment(r.Context(), id)
	if err != nil {
		return err
	}
	defer f.Close()
	h := w.Header()
	ct := a.Mime
	disposition := "inline"
	if !inlineTypes[ct] {
		ct, disposition = "application/octet-stream", "attachment"
	}
	if ct == "text/plain" {
		ct = "text/plain; charset=utf-8"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": a.Filename}))
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	h.Set("Content-Security-Policy", "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox")
	// ServeContent streams the file in chunks (and answers ranges and HEAD)
	// without reading it whole.
	http.ServeContent(w, r, "", timeOf(a.CreatedAt), f)
	return nil
}

func (s *Server) deleteAttachment(w http.ResponseWriter, r *http.Request, p params) error {
	id, err := pathInt(p, "id")
	if err != nil {
		return err
	}
	if err := s.store.DeleteAttachment(r.Context(), id, query(r, "actor")); err != nil {
		return err
	}
	return writeJSON(w, r, http.StatusOK, map[string]any{"deleted": id})
}
