package office_test

import (
	"encoding/json"
	"strings"
	"testing"

	"desk"
	"desk/office"
)

func TestTheDefaultOfficeIsValidAndSeatsTwelve(t *testing.T) {
	l := office.Default()
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	chairs, screens, doors := 0, 0, 0
	for _, it := range l.Furniture {
		switch it.Type {
		case "chair":
			chairs++
		case "computer":
			screens++
		case "door":
			doors++
		}
	}
	if chairs != 12 || screens != 12 || doors != 1 {
		t.Errorf("%d chairs, %d computers, %d doors; want 12, 12, 1", chairs, screens, doors)
	}
	if l.Revision != 0 || len(l.Areas) != 2 {
		t.Errorf("revision %d, %d areas", l.Revision, len(l.Areas))
	}
	// What the API sends reads back the same.
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	back, err := office.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Check(); err != nil {
		t.Fatal(err)
	}
}

// small is a valid 4×3 office: walls around two floor tiles... with room
// for a desk, a computer and a chair.
func small() string {
	return `{"version":1,"cols":4,"rows":3,
		"tiles":[1,1,1,1, 2,2,2,2, 2,2,2,2],
		"furniture":[{"uid":"d","type":"desk","col":0,"row":1,"rot":0,"color":""},
			{"uid":"pc","type":"computer","col":0,"row":1,"rot":2,"color":"#AABBCC"},
			{"uid":"c","type":"chair","col":0,"row":2,"rot":2,"color":""},
			{"uid":"door","type":"door","col":3,"row":0,"rot":0,"color":""}],
		"areas":[{"id":"team","name":" Team  A ","color":"#112233","project":"mygame","folder":"","tiles":[6,7]}],
		"revision":0}`
}

func TestAValidLayoutIsNormalised(t *testing.T) {
	l, err := office.Decode([]byte(small()))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	if l.Furniture[1].Color != "#aabbcc" || l.Areas[0].Name != "Team A" || len(l.Colors) != 12 {
		t.Errorf("not normalised: %+v %+v %d colours", l.Furniture[1], l.Areas[0], len(l.Colors))
	}
	if _, ok := l.Chair("c"); !ok {
		t.Error("the chair is not a seat")
	}
	if _, ok := l.Chair("d"); ok {
		t.Error("a desk is a seat")
	}
}

func TestBadLayoutsSayWhatIsWrong(t *testing.T) {
	edit := func(fn func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(small()), &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	item := func(m map[string]any, i int) map[string]any { return m["furniture"].([]any)[i].(map[string]any) }
	for _, c := range []struct {
		name, body, want string
	}{
		{"not JSON", `{"version":1,`, "not JSON"},
		{"empty", ``, "empty"},
		{"an array", `[1,2]`, "must be a JSON object"},
		{"two objects", small() + small(), "more after it"},
		{"unknown field", edit(func(m map[string]any) { m["pets"] = []any{} }), `unknown field "pets"`},
		{"a string for a number", edit(func(m map[string]any) { m["cols"] = "4" }), "cols: expected a whole number"},
		{"wrong version", edit(func(m map[string]any) { m["version"] = 2 }), "version: 2"},
		{"too wide", edit(func(m map[string]any) { m["cols"] = 65 }), "cols and rows go from 1 to 64"},
		{"no rows", edit(func(m map[string]any) { m["rows"] = 0 }), "cols and rows go from 1 to 64"},
		{"tiles short", edit(func(m map[string]any) { m["tiles"] = []any{1, 1} }), "tiles: 2 entries for a 4×3 office, which has 12"},
		{"unknown tile", edit(func(m map[string]any) { m["tiles"].([]any)[5] = 42 }), "tiles[5] (col 1, row 1): 42 is not a tile"},
		{"colours short", edit(func(m map[string]any) { m["colors"] = []any{""} }), "colors: 1 entries for 12 tiles"},
		{"bad colour", edit(func(m map[string]any) { m["colors"] = strings.Split(strings.Repeat("red,", 12)[:47], ",") }), `colors[0]: "red" is not a colour`},
		{"unknown furniture", edit(func(m map[string]any) { item(m, 2)["type"] = "piano" }), `"piano" is not a kind of furniture`},
		{"off the grid", edit(func(m map[string]any) { item(m, 0)["col"] = 3 }), "furniture[0] (desk d): its 2×1 footprint at col 3, row 1 does not fit in the 4×3 office"},
		{"negative", edit(func(m map[string]any) { item(m, 2)["row"] = -1 }), "does not fit"},
		{"on a wall", edit(func(m map[string]any) { item(m, 2)["row"] = 0 }), "col 0, row 0 is a wall, not floor"},
		{"overlap", edit(func(m map[string]any) { item(m, 2)["row"] = 1 }), "is taken by"},
		{"computer on the floor", edit(func(m map[string]any) { item(m, 1)["row"] = 2 }), "has no desk under it"},
		{"door off the wall", edit(func(m map[string]any) { item(m, 3)["row"] = 1 }), "is not a wall; a door goes on a wall"},
		{"turned plant", edit(func(m map[string]any) {
			m["furniture"] = append(m["furniture"].([]any), map[string]any{"uid": "p", "type": "plant", "col": 3, "row": 2, "rot": 1, "color": ""})
		}), "a plant does not turn"},
		{"rot 4", edit(func(m map[string]any) { item(m, 2)["rot"] = 4 }), "rot 4 is not 0 to 3"},
		{"same uid", edit(func(m map[string]any) { item(m, 2)["uid"] = "d" }), `another item has the uid "d"`},
		{"bad uid", edit(func(m map[string]any) { item(m, 2)["uid"] = "a b" }), `uid "a b" must be`},
		{"area off the grid", edit(func(m map[string]any) { m["areas"].([]any)[0].(map[string]any)["tiles"] = []any{99} }), "tile 99 is outside the 4×3 office"},
		{"area on a wall", edit(func(m map[string]any) { m["areas"].([]any)[0].(map[string]any)["tiles"] = []any{1} }), "areas are painted on floor"},
		{"area without a name", edit(func(m map[string]any) { m["areas"].([]any)[0].(map[string]any)["name"] = "  " }), "a name is 1 to 40 characters"},
		{"area of a bad project", edit(func(m map[string]any) { m["areas"].([]any)[0].(map[string]any)["project"] = "My Game" }), `project "My Game" is not a project slug`},
		{"relative folder", edit(func(m map[string]any) { m["areas"].([]any)[0].(map[string]any)["folder"] = "src/game" }), "must be an absolute path"},
		{"two areas on a tile", edit(func(m map[string]any) {
			m["areas"] = append(m["areas"].([]any), map[string]any{"id": "b", "name": "B", "color": "#000000", "project": "", "folder": "", "tiles": []any{7}})
		}), "tile 7 is already in area team"},
		{"negative revision", edit(func(m map[string]any) { m["revision"] = -3 }), "revision: -3 is below 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := office.Decode([]byte(c.body))
			if err == nil {
				err = l.Check()
			}
			if err == nil {
				t.Fatalf("accepted: %s", c.body)
			}
			if desk.ErrorCode(err) != desk.Invalid {
				t.Errorf("code %q, want invalid", desk.ErrorCode(err))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to say %q", err, c.want)
			}
		})
	}
}

func TestTooMuchFurnitureIsRefused(t *testing.T) {
	l := office.Default()
	for i := 0; len(l.Furniture) <= office.MaxFurniture; i++ {
		l.Furniture = append(l.Furniture, l.Furniture[len(l.Furniture)-1])
	}
	if err := l.Check(); err == nil || !strings.Contains(err.Error(), "over the limit of 1024") {
		t.Errorf("error %v", err)
	}
}
