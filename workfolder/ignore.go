package workfolder

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The files that keep paths out of a change, with git's syntax: the
// .gitignore of the root and of each folder (for the paths under it), then
// the .deskignore of the root, which wins where both match.
const (
	GitIgnore  = ".gitignore"
	DeskIgnore = ".deskignore"
)

// MainSuffix ends the name of main's version of a file that both main and
// the folder changed, written beside it by desk sync. Such a copy is never
// sent.
const MainSuffix = ".desk-main"

// pattern is one line of an ignore file.
type pattern struct {
	negate  bool
	dirOnly bool
	// anchored patterns match the whole path under the file's folder;
	// the others match a path's last name at any depth.
	anchored bool
	segs     []string // the pattern split at "/", for anchored ones
	glob     string   // the whole pattern, for the others
	literal  bool     // glob holds no wildcard
}

// rules are the patterns of one ignore file, for the paths under base
// ("" for the root).
type rules struct {
	base     string
	patterns []pattern
}

func parseRules(base string, text string) *rules {
	r := &rules{base: base}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		// Trailing spaces go unless escaped with a backslash.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var p pattern
		if strings.HasPrefix(line, "!") {
			p.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			p.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			p.anchored = true
			p.segs = strings.Split(strings.TrimPrefix(line, "/"), "/")
			for i, s := range p.segs {
				p.segs[i] = gitClass(s)
			}
		} else {
			p.glob = gitClass(line)
			p.literal = !strings.ContainsAny(line, `*?[\`)
		}
		r.patterns = append(r.patterns, p)
	}
	return r
}

// gitClass spells git's negated class [!...] as path.Match does, [^...].
func gitClass(s string) string { return strings.ReplaceAll(s, "[!", "[^") }

// match says whether the rules decide about rel (a path relative to the
// root, of a folder when dir): ignored, and decided when a pattern matched.
func (r *rules) match(rel string, dir bool) (ignored, decided bool) {
	sub := rel
	if r.base != "" {
		sub = strings.TrimPrefix(rel, r.base+"/")
	}
	name := sub[strings.LastIndexByte(sub, '/')+1:]
	for i := len(r.patterns) - 1; i >= 0; i-- {
		p := &r.patterns[i]
		if p.dirOnly && !dir {
			continue
		}
		var ok bool
		switch {
		case p.anchored:
			ok = matchSegs(p.segs, strings.Split(sub, "/"))
		case p.literal:
			ok = p.glob == name
		default:
			ok, _ = path.Match(p.glob, name)
		}
		if ok {
			return !p.negate, true
		}
	}
	return false, false
}

// matchSegs matches a path's names against a pattern's, where ** stands
// for any number of names (none too).
func matchSegs(pat, names []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(names) > 0
			}
			for i := 0; i <= len(names); i++ {
				if matchSegs(pat[1:], names[i:]) {
					return true
				}
			}
			return false
		}
		if len(names) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], names[0]); !ok {
			return false
		}
		pat, names = pat[1:], names[1:]
	}
	return len(names) == 0
}

// deskRules reads the .deskignore of the root, when there is one.
func deskRules(root string) *rules {
	if b, err := os.ReadFile(filepath.Join(root, DeskIgnore)); err == nil {
		return parseRules("", string(b))
	}
	return nil
}

// isIgnored reports whether the path rel (a folder when dir) stays out:
// the .deskignore of the root decides first, then the .gitignore files
// from the deepest folder up (git's order), each by its last matching
// line.
func isIgnored(deskRules *rules, git []*rules, rel string, dir bool) bool {
	if AlwaysOut(rel) {
		return true
	}
	if deskRules != nil {
		if ign, ok := deskRules.match(rel, dir); ok {
			return ign
		}
	}
	for i := len(git) - 1; i >= 0; i-- {
		if ign, ok := git[i].match(rel, dir); ok {
			return ign
		}
	}
	return false
}

// AlwaysOut reports whether a path is one that never goes up whatever the
// ignore files say: the work folder's state and main's copies.
func AlwaysOut(rel string) bool {
	return rel == WorkDir || strings.HasPrefix(rel, WorkDir+"/") || strings.HasSuffix(rel, MainSuffix)
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}
