package install

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"desk"
)

// linkFile is the marker at a repo's root that names its desk project.
const linkFile = ".desk.json"

// gitRoot finds the repository that holds dir: the nearest folder upward
// with a .git folder or file.
func gitRoot(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// offerLink links the git repo desk runs in to a project: the one given
// with --link, or one the user names when asked.
func offerLink(env *Env, in *bufio.Reader, o *options) error {
	root, ok := gitRoot(env.Dir)
	if !ok {
		if o.link != "" {
			return fmt.Errorf("--link: %s is not inside a git repo; run desk from the repo to link", env.Dir)
		}
		return nil
	}
	path := filepath.Join(root, linkFile)
	current, err := readLink(path)
	if err != nil {
		return err
	}
	slug := o.link
	switch {
	case current != "" && (slug == "" || slug == current):
		fmt.Fprintf(env.Stdout, "This repo is linked to the desk project %s.\n", current)
		return nil
	case current != "":
		return fmt.Errorf("%s already links this repo to %s; edit it by hand to link %s instead", path, current, slug)
	case slug == "" && (o.yes || o.dryRun):
		fmt.Fprintf(env.Stdout, "To link this repo to a desk project: desk install --link SLUG (writes %s)\n", path)
		return nil
	case slug == "":
		slug = ask(env, in, fmt.Sprintf("Link %s to a desk project? Its slug (empty to skip): ", root))
		if slug == "" {
			return nil
		}
		if !desk.ValidSlug(slug) {
			return fmt.Errorf("%q is not a project slug: 1-40 lower-case letters, digits or '-', e.g. mygame", slug)
		}
	}
	content, _ := json.Marshal(map[string]string{"project": slug})
	if o.dryRun {
		fmt.Fprintf(env.Stdout, "Would create %s: %s\n", path, content)
		return nil
	}
	w := &writer{now: env.now}
	if _, err := w.commit(path, 0o644, false, func(old []byte, exists bool) ([]byte, bool, error) {
		if exists {
			return nil, false, fmt.Errorf("%s appeared meanwhile; run desk again", path)
		}
		return append(content, '\n'), true, nil
	}); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Linked this repo to the desk project %s (%s).\n", slug, path)
	return nil
}

// readLink returns the project a link file names, "" when there is none.
func readLink(path string) (string, error) {
	b, ok, err := readMaybe(path)
	if err != nil || !ok {
		return "", err
	}
	var l struct {
		Project string `json:"project"`
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Project == "" {
		return "", fmt.Errorf("%s is not a desk link (want {\"project\": \"<slug>\"}); fix or remove it", path)
	}
	return l.Project, nil
}
