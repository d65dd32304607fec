package cli_test

import (
	"os"
	"testing"
)

// A script asking which projects a folder with no desk holds gets an empty
// answer, plain and as JSON, and the folder is not created.
func TestProjectsOfAFolderWithNoDeskIsAnEmptyList(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"projects", "--json"}, "{\"projects\":[]}\n"},
		{[]string{"projects"}, "No projects yet: desk new-project --slug mygame --name MyGame --prefix MG\n"},
	} {
		r := e.run(c.args...)
		if r.code != 0 || r.out != c.want || r.err != "" {
			t.Errorf("desk %v on no desk: exit %d, stdout %q, stderr %q; want exit 0 and %q", c.args, r.code, r.out, r.err, c.want)
		}
		if _, err := os.Stat(e.data); !os.IsNotExist(err) {
			t.Fatalf("desk %v created the data folder", c.args)
		}
	}
}
