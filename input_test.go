package desk_test

import (
	"encoding/json"
	"strings"
	"testing"

	"desk"
)

func decode(t *testing.T, js string) (desk.IssueFields, error) {
	t.Helper()
	m, err := desk.DecodeObject([]byte(js))
	if err != nil {
		return desk.IssueFields{}, err
	}
	return desk.DecodeIssueFields(m)
}

func TestDecodeIssueFields(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f, err := decode(t, `{"title": "  Lava   tips\tare square ", "kind": "CHECK", "tags": "lava, terrain,,lava",
			"location": {"command": "/goto 1 2 3", "x": 1, "place": "Ember Rift", "biome": "volcano"}, "size": "m"}`)
		if err != nil {
			t.Fatal(err)
		}
		if *f.Title != "Lava tips are square" {
			t.Errorf("title = %q", *f.Title)
		}
		if *f.Kind != "check" || *f.Size != "M" {
			t.Errorf("kind %q size %q", *f.Kind, *f.Size)
		}
		if strings.Join(*f.Tags, "|") != "lava|terrain" {
			t.Errorf("tags = %v", *f.Tags)
		}
		loc := f.Location
		if loc.Command != "/goto 1 2 3" || len(loc.Commands) != 1 || loc.Commands[0].Command != "/goto 1 2 3" {
			t.Errorf("commands = %+v", loc)
		}
		if loc.Extra["biome"] != "volcano" {
			t.Errorf("unknown location key not moved into extra: %+v", loc.Extra)
		}
	})
	t.Run("CommandsShorthand", func(t *testing.T) {
		f, err := decode(t, `{"commands": ["/goto 1", {"command": "/goto 2", "label": "the harbor"}, {"command": "  "}]}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(*f.Commands) != 2 || (*f.Commands)[1].Label != "the harbor" {
			t.Fatalf("commands = %+v", *f.Commands)
		}
	})
	t.Run("LocationAsText", func(t *testing.T) {
		f, err := decode(t, `{"location": "/goto 5 6 7"}`)
		if err != nil || f.Location.Command != "/goto 5 6 7" {
			t.Fatalf("got %+v %v", f.Location, err)
		}
	})
	bad := map[string]string{
		"ErrTitleEmpty":      `{"title": "   "}`,
		"ErrTitleTooLong":    `{"title": "` + strings.Repeat("x", 301) + `"}`,
		"ErrKind":            `{"kind": "feature"}`,
		"ErrStatus":          `{"status": "done"}`,
		"ErrPriority":        `{"priority": "p9"}`,
		"ErrSize":            `{"size": "XL"}`,
		"ErrTitleType":       `{"title": 5}`,
		"ErrTagsType":        `{"tags": 5}`,
		"ErrSeed":            `{"seed": "abc"}`,
		"ErrLocationX":       `{"location": {"x": "far"}}`,
		"ErrTooManyCommands": `{"commands": [` + strings.Repeat(`"/a",`, 20) + `"/b"]}`,
		"ErrCommandType":     `{"commands": [{"label": "no command"}]}`,
		"ErrMilestoneLong":   `{"milestone": "` + strings.Repeat("m", 121) + `"}`,
	}
	for name, js := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := decode(t, js)
			if desk.ErrorCode(err) != desk.Invalid {
				t.Fatalf("err = %v, want invalid", err)
			}
		})
	}
	t.Run("ErrNotAnObject", func(t *testing.T) {
		for _, js := range []string{`[]`, `"x"`, `{`, `{} {}`, ``} {
			if _, err := desk.DecodeObject([]byte(js)); desk.ErrorCode(err) != desk.Invalid {
				t.Errorf("%q: err = %v", js, err)
			}
		}
	})
	t.Run("ErrorNamesTheField", func(t *testing.T) {
		_, err := decode(t, `{"priority": "urgent"}`)
		if err == nil || !strings.Contains(err.Error(), "priority") || !strings.Contains(err.Error(), "p0") {
			t.Fatalf("error %q does not name the field and its values", err)
		}
	})
}

func TestSetFirstCommandKeepsCommandEqualToFirst(t *testing.T) {
	var l desk.Location
	l.SetFirstCommand("/goto 1")
	l.Commands = append(l.Commands, desk.LocationCommand{Command: "/goto 2"})
	l.SetFirstCommand("/goto 9")
	if l.Command != "/goto 9" || len(l.Commands) != 2 {
		t.Fatalf("%+v", l)
	}
	l.SetFirstCommand("")
	if l.Command != "/goto 2" || len(l.Commands) != 1 {
		t.Fatalf("removing the first: %+v", l)
	}
}

func TestSeedCommand(t *testing.T) {
	seed := int64(1234)
	cases := map[string]string{
		"/goto 1 2 3":              "/goto 1 2 3 seed 1234",
		"/time 17:30; /goto 1 2 3": "/time 17:30; /goto 1 2 3 seed 1234",
		"/goto 1 2 3 seed 99":      "/goto 1 2 3 seed 99",
		"/goto 1 2 3; /goto 4 5 6": "/goto 1 2 3 seed 1234; /goto 4 5 6",
		"/weather rain":            "/weather rain",
		"/goto 1 2 3 ; /time 5":    "/goto 1 2 3 seed 1234 ; /time 5",
	}
	for in, want := range cases {
		if got := desk.SeedCommand(in, &seed); got != want {
			t.Errorf("SeedCommand(%q) = %q, want %q", in, got, want)
		}
	}
	if got := desk.SeedCommand("/goto 1", nil); got != "/goto 1" {
		t.Errorf("no seed changed the command: %q", got)
	}
}

// FuzzDecodeIssueFields feeds arbitrary bytes to the decoder a client's
// JSON goes through: it must answer with fields or an Invalid error, never
// panic, and what it accepts must keep its invariants.
func FuzzDecodeIssueFields(f *testing.F) {
	seeds := []string{
		`{"title":"a","tags":"x,y","location":{"command":"/goto 1","seed":"5","extra":{"k":1}}}`,
		`{"commands":[{"command":"/a","label":"b"},"/c"],"command":""}`,
		`{"location":"/goto 1 2","seed":null,"size":"s","parent":"MG-1"}`,
		`{"title":5}`, `[]`, `{"location":{"x":1e400}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := desk.DecodeObject(data)
		if err != nil {
			if desk.ErrorCode(err) != desk.Invalid {
				t.Fatalf("object error with code %q", desk.ErrorCode(err))
			}
			return
		}
		fields, err := desk.DecodeIssueFields(m)
		if err != nil {
			if desk.ErrorCode(err) != desk.Invalid {
				t.Fatalf("fields error with code %q: %v", desk.ErrorCode(err), err)
			}
			return
		}
		if fields.Title != nil && (*fields.Title == "" || len(*fields.Title) > desk.MaxTitle) {
			t.Fatalf("accepted title %q", *fields.Title)
		}
		if fields.Location != nil {
			loc := *fields.Location
			if len(loc.Commands) > desk.MaxCommands {
				t.Fatalf("accepted %d commands", len(loc.Commands))
			}
			if len(loc.Commands) > 0 && loc.Command != loc.Commands[0].Command {
				t.Fatalf("command %q is not the first of %+v", loc.Command, loc.Commands)
			}
			if _, err := json.Marshal(loc); err != nil {
				t.Fatalf("accepted location does not encode: %v", err)
			}
		}
	})
}
