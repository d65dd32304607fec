package install

import (
	"strings"
	"testing"
)

// Inserting desk's member and removing it again gives back the text byte
// for byte, whatever the formatting around it.
func TestJSONMemberInsertAndRemoveRestoreTheText(t *testing.T) {
	docs := map[string]string{
		"empty object":          "{}\n",
		"no trailing newline":   `{"a": 1}`,
		"one line":              `{"a": 1, "mcp": {"x": {"command": "y"}}}`,
		"comments and commas":   "{\n  // lead\n  \"mcp\": {\n    \"x\": {}, // trailing note\n  },\n  /* end */\n}\n",
		"tabs":                  "{\n\t\"mcp\": {\n\t\t\"x\": true\n\t}\n}\n",
		"four spaces, BOM":      "\ufeff{\n    \"theme\": \"dark\"\n}\n",
		"empty mcp on one line": "{\n  \"mcp\": {}\n}\n",
		"crlf":                  "{\r\n  \"a\": [1, 2]\r\n}\r\n",
	}
	value := obj{{"type", "local"}, {"command", []string{"/usr/local/bin/desk", "mcp"}}, {"environment", obj{{"DESK_CLIENT", "x"}}}}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			out, created, err := setMember([]byte(doc), []string{"mcp"}, "desk", value)
			if err != nil {
				t.Fatal(err)
			}
			root, err := parseJSONC(out)
			if err != nil {
				t.Fatalf("the edit broke the document: %v\n%s", err, out)
			}
			if n, _ := lookup(root, []string{"mcp", "desk"}); n == nil || !sameJSON(n.value(), value) {
				t.Fatalf("desk's member is missing or wrong:\n%s", out)
			}
			again, _, _ := setMember(out, []string{"mcp"}, "desk", value)
			if string(again) != string(out) {
				t.Fatalf("setting the same value again changed the text:\n%s", again)
			}
			back, err := removeMember(out, []string{"mcp"}, "desk")
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range created {
				if back, err = removeIfEmpty(back, k); err != nil {
					t.Fatal(err)
				}
			}
			if string(back) != doc {
				t.Fatalf("not restored:\n--- want\n%q\n--- got\n%q", doc, back)
			}
		})
	}
}

func TestJSONCErrorsNameTheLineAndColumn(t *testing.T) {
	for doc, want := range map[string]string{
		"{\n  \"a\": 1\n  \"b\": 2\n}": "line 3, column 3",
		"{\"a\": [1,, 2]}":             "line 1, column 10",
		"/* never closed":              "never closed",
		"":                             "empty",
		"{\"a\": \"\x01\"}":            "control character",
	} {
		_, err := parseJSONC([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one that mentions %q", doc, err, want)
		}
	}
}

func TestTOMLBlockRemovalRestoresTheFile(t *testing.T) {
	for _, doc := range []string{"", "a = 1\n", "a = 1", "# only a comment\n\n", "[t]\nx = 2\n"} {
		spec := tomlSpec{body: "[mcp_servers.desk]\ncommand = \"/d\"\n"}
		out, keep, err := tomlEditor(spec, false)([]byte(doc), doc != "")
		if err != nil || !keep {
			t.Fatalf("%q: %v", doc, err)
		}
		if v, err := decodeTOML(out); err != nil || v["mcp_servers"] == nil {
			t.Fatalf("%q: the block does not parse as desk's server: %v\n%s", doc, err, out)
		}
		back, keep, err := tomlEditor(spec, true)(out, true)
		if err != nil {
			t.Fatal(err)
		}
		want := doc
		if doc == "a = 1" {
			want = "a = 1\n" // desk ended the last line before its block
		}
		if (doc == "" && keep) || (doc != "" && string(back) != want) {
			t.Fatalf("%q: not restored: %q (keep %v)", doc, back, keep)
		}
	}
}
