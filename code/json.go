package code

import (
	"encoding/json"

	"desk"
)

// changeJSON is a change as the routes answer it.
type changeJSON struct {
	ID         ID       `json:"id"`
	Tree       ID       `json:"tree"`
	Parents    []ID     `json:"parents"`
	Author     string   `json:"author"`
	Time       string   `json:"time"`
	Message    string   `json:"message"`
	Intents    []string `json:"intents"`
	Generation int64    `json:"generation"`
}

func (r *ChangeRow) json() changeJSON {
	ps := r.Parents
	if ps == nil {
		ps = []ID{}
	}
	in := r.Intents
	if in == nil {
		in = []string{}
	}
	return changeJSON{r.ID, r.Tree, ps, r.Author, desk.FormatTime(r.Time), r.Message, in, r.Generation}
}

// MarshalJSON writes {"id", "tree", "parents", "author", "time",
// "message", "intents", "generation"}.
func (r ChangeRow) MarshalJSON() ([]byte, error) { return json.Marshal(r.json()) }

// MarshalJSON writes the change landed with {"seq", "submitted",
// "rebased", "landed_by", "landed_at"} beside its fields.
func (e LogEntry) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Seq       int64  `json:"seq"`
		Submitted ID     `json:"submitted"`
		Rebased   bool   `json:"rebased"`
		LandedBy  string `json:"landed_by"`
		LandedAt  string `json:"landed_at"`
		changeJSON
		Change ID `json:"change"`
	}{e.Seq, e.Submitted, e.Rebased, e.LandedBy, desk.FormatTime(e.LandedAt), e.Row.json(), e.Change})
}

// MarshalJSON writes {"name", "mode", "type", "id"}.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name string `json:"name"`
		Mode string `json:"mode"`
		Type string `json:"type"`
		ID   ID     `json:"id"`
	}{e.Name, e.Mode.String(), e.Mode.Type().String(), e.ID})
}

// MarshalJSON writes {"path", "mode", "id"}.
func (f File) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Path string `json:"path"`
		Mode string `json:"mode"`
		ID   ID     `json:"id"`
	}{f.Path, f.Mode.String(), f.ID})
}

// MarshalJSON writes the open change with its time in desk's format.
func (o OpenChange) MarshalJSON() ([]byte, error) {
	in, ps := o.Intents, o.Paths
	if in == nil {
		in = []string{}
	}
	if ps == nil {
		ps = []string{}
	}
	return json.Marshal(struct {
		Workspace string   `json:"workspace"`
		Change    ID       `json:"change"`
		Author    string   `json:"author"`
		Intents   []string `json:"intents"`
		Paths     []string `json:"paths"`
		SentAt    string   `json:"sent_at"`
	}{o.Workspace, o.Change, o.Author, in, ps, desk.FormatTime(o.SentAt)})
}

// MarshalJSON writes the open change with the paths it shares and the
// warning line.
func (o Overlap) MarshalJSON() ([]byte, error) {
	b, err := o.OpenChange.MarshalJSON()
	if err != nil {
		return nil, err
	}
	extra, err := json.Marshal(struct {
		Shared  []string `json:"shared"`
		Warning string   `json:"warning"`
	}{o.Shared, o.Warning})
	if err != nil {
		return nil, err
	}
	return append(append(b[:len(b)-1], ','), extra[1:]...), nil
}
