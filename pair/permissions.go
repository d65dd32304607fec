package pair

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// The decision to say yes to a prompt is made on the prompt's text, not by
// running or parsing the command as a shell would: a harmless word can sit
// next to a dangerous one. So the never-list is checked first, on the whole
// prompt, and wins at every setting; then every part of a command (split at
// &&, ||, ;, | and new lines) must start with an allowed prefix.

// DefaultAllow is the allowlist: reads, edits inside the folder, tests and
// linters, local git, a push to a feature branch, and gh pr. An entry is a
// command prefix matched word by word ("git status" allows "git status
// --short"), or the name of an agent's file tool (Read, Edit, Write), which
// allows it inside the folder.
var DefaultAllow = []string{
	// Reads.
	"Read", "cat", "ls", "head", "tail", "wc", "grep", "rg", "find", "tree", "pwd", "echo", "stat", "file", "du",
	"diff", "cmp", "sort", "uniq", "cut", "jq", "sed -n", "cd", "which", "true",
	// Edits inside the folder.
	"Edit", "Write", "mkdir", "touch", "gofmt", "go fmt", "goimports", "prettier", "cargo fmt", "ruff format", "black",
	// Tests, builds and linters.
	"go test", "go vet", "go build", "go run", "go mod tidy", "staticcheck", "golangci-lint",
	"npm test", "npm run test", "npm run lint", "npm run build", "npm run typecheck", "npm run check", "npx tsc", "tsc", "eslint", "node --test",
	"pytest", "python -m pytest", "python3 -m pytest", "ruff", "mypy", "tox",
	"cargo test", "cargo build", "cargo check", "cargo clippy",
	"make test", "make lint", "make check", "make build", "make", "bash scripts/test.sh", "scripts/test.sh", "./scripts/test.sh",
	// Local git.
	"git status", "git diff", "git log", "git show", "git add", "git commit", "git branch", "git checkout", "git switch",
	"git restore", "git stash", "git rev-parse", "git blame", "git ls-files", "git worktree list", "git merge-base", "git apply",
	// A push to a feature branch (the never-list refuses main, master and --force).
	"git push",
	// gh pr, and reading issues and runs.
	"gh pr create", "gh pr view", "gh pr list", "gh pr checks", "gh pr status", "gh pr diff", "gh pr comment", "gh pr edit",
	"gh issue view", "gh issue list", "gh run view", "gh run list", "gh run watch", "gh workflow view", "gh workflow list",
}

// never is one entry of the never-list: a pattern on the prompt's text
// (lower case, spaces collapsed) and why it stops the pair.
type never struct {
	re  *regexp.Regexp
	why string
}

func nv(why string, patterns ...string) []never {
	out := make([]never, len(patterns))
	for i, p := range patterns {
		out[i] = never{regexp.MustCompile(p), why}
	}
	return out
}

// neverList stops the pair at every autonomy level and every allowlist.
// It is compiled on first use: every desk process would pay for its
// hundred patterns at start, and most never decide a prompt.
var neverList = sync.OnceValue(func() []never { return neverPatterns() })

func neverPatterns() []never {
	return concat(
		nv("secrets", `(^|[\s/'"=])\.env(\.[a-z0-9_]+)?($|[\s'"/;|&)])`, `id_(rsa|ed25519|ecdsa|dsa)`, `\.ssh/`, `\.aws/`, `\.gnupg`,
			`credentials`, `secret`, `password`, `passwd`, `\.pem\b`, `\.netrc`, `\.npmrc`, `\bprintenv\b`, `_token\b`, `\bapi[_-]?key`, `\bvault\b`, `\bsealkeep\b`),
		nv("ports", `\blisten\b`, `--port\b`, `\bnc\s+(-[a-z]*l|.*-l\b)`, `\bncat\b`, `\bsocat\b`, `\bngrok\b`, `http\.server`, `0\.0\.0\.0`,
			`\bssh\s.*-[lrd]\b`, `\bdocker\s+run\b.*\s-p\s`, `\biptables\b`, `\bufw\b`),
		nv("deploys", `\bdeploy`, `\bkubectl\s+(apply|delete|rollout|scale|patch|replace|create)`, `\bhelm\s+(install|upgrade|uninstall|delete)`,
			`\bterraform\s+(apply|destroy)`, `\bpulumi\s+up`, `\bvercel\b`, `\bnetlify\b`, `\bgh\s+release`, `\bnpm\s+publish`, `\bcargo\s+publish`,
			`\bdocker\s+push`, `\bfly\s+`, `\bproduction\b`, `\bprod\b`),
		nv("migrations", `migrat`, `\balembic\b`, `\bflyway\b`, `\bliquibase\b`),
		nv("deleting data", `\bdrop\s+(table|database|schema)`, `\btruncate\b`, `\bdelete\s+from\b`, `\bdropdb\b`, `\bshred\b`,
			`\brm\s+(-[a-z]*\s+)*-[a-z]*[rf][a-z]*\s+(.*\s)?(/|/\*|~|~/|~/\*|\.|\./|\./\*|\*|\.\.|\$home)(\s|$|;|&|\|)`, `\brm\s+.*--no-preserve-root`),
		nv("the machine", `\bmkfs`, `(^|\s)dd\s`, `\bkillall\b`, `\bpkill\b`, `\bshutdown\b`, `\breboot\b`, `\bsudo\b`, `\bchmod\s+-r\b`, `\bchown\s+-r\b`, `>\s*/dev/sd`),
		nv("git history", `\bgit\s+push\b.*\s(origin\s+)?(main|master)(\s|$|:)`, `\bgit\s+push\b.*:(main|master)\b`, `\bgit\s+push\b.*\s(-f|--force|--force-with-lease|--mirror|--delete|-d)\b`,
			`\bgit\s+push\s+\S+\s+\+`, `\breset\s+--hard\b`, `\bclean\s+(-[a-z]*f|--force)`, `\bfilter-branch\b`, `\bfilter-repo\b`, `\bgh\s+pr\s+merge\b`,
			`\bgit\s+branch\s+-d\b`, `\bupdate-ref\s+-d\b`, `\bgit\s+push\s*$`),
		nv("network and installs", `\bcurl\b`, `\bwget\b`, `\b(pip|pip3|pipx|uv\s+pip)\s+install\b`, `\bnpm\s+(install|i|ci|add)\b`, `\bnpx\s+-y\b`,
			`\b(yarn|pnpm|bun)\s+(add|install|i)\b`, `\bapt(-get)?\s+install\b`, `\bbrew\s+install\b`, `\bgo\s+(install|get)\b`, `\bcargo\s+install\b`,
			`\bgem\s+install\b`, `\bscp\b`, `\brsync\b`, `\bgit\s+clone\b`),
		nv("piping into a shell", `\|\s*(sudo\s+)?(sh|bash|zsh|dash|ksh|fish|python3?|perl|ruby|node)\b`, `\$\(`, "`", `\bfind\b.*\s-(exec|execdir|ok|okdir|delete)\b`,
			`\bxargs\b.*\b(sh|bash|rm)\b`, `\beval\b`, `\b(sh|bash|zsh)\s+-c\b`, `<\(`),
		nv("desk's owner commands", `\bdesk\s+pair\s+(ok|stop|budget|swap)\b`, `\bdesk\s+(restore|backup)\b`),
	)
}

func concat(lists ...[]never) []never {
	var out []never
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Policy decides which prompts may be answered yes in one working folder.
type Policy struct {
	Folder string
	// Allow is the allowlist (DefaultAllow unless the folder's
	// permissions.json replaces it).
	Allow []string
	// Never adds the folder's own entries to the never-list: substrings,
	// matched in lower case.
	Never []string
	// Source names where the policy came from, for the transcript.
	Source string
}

// PermissionsFile is the file in a working folder that widens or narrows
// the allowlist: {"allow": [...]} replaces it, {"extend": [...]} adds to
// it, {"never": [...]} adds to the never-list, which nothing shortens.
const PermissionsFile = ".desk-pair/permissions.json"

// LoadPolicy reads a folder's policy: the default allowlist changed by its
// permissions.json, if it has one. A file that cannot be read leaves no
// allowlist at all (nothing is approved) and says why: a folder that meant
// to narrow the list must not get the default one by a typo.
func LoadPolicy(folder string) (*Policy, error) {
	p := &Policy{Folder: folder, Allow: DefaultAllow, Source: "default"}
	path := filepath.Join(folder, PermissionsFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	fail := func(why string) (*Policy, error) {
		return &Policy{Folder: folder, Source: path}, fmt.Errorf("%s: %s: nothing is approved until it is fixed", path, why)
	}
	if err != nil {
		return fail(err.Error())
	}
	var f struct {
		Allow  *[]string `json:"allow"`
		Extend []string  `json:"extend"`
		Never  []string  `json:"never"`
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return fail("not a permissions file ({\"allow\": [...], \"extend\": [...], \"never\": [...]}): " + err.Error())
	}
	if f.Allow != nil {
		p.Allow = *f.Allow
	}
	p.Allow = append(append([]string{}, p.Allow...), f.Extend...)
	for _, n := range f.Never {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			p.Never = append(p.Never, n)
		}
	}
	p.Source = path
	return p, nil
}

// Decision is the answer to one prompt.
type Decision struct {
	Approve bool   `json:"approve"`
	Reason  string `json:"reason"`
	Line    string `json:"line"` // the exact prompt line decided on
}

// Decide says whether prompt pr may be answered yes.
func (pol *Policy) Decide(pr Prompt) Decision {
	d := Decision{Line: pr.Line}
	if pr.Line == "" {
		d.Reason = "the prompt's line could not be read"
		return d
	}
	text := normalize(pr.Block + "\n" + pr.Line)
	for _, n := range neverList() {
		if n.re.MatchString(text) {
			d.Reason = "never-list: " + n.why + " (" + n.re.String() + ")"
			return d
		}
	}
	for _, n := range pol.Never {
		if strings.Contains(text, n) {
			d.Reason = "never-list of " + PermissionsFile + ": " + n
			return d
		}
	}
	if !pr.Ready {
		d.Reason = "the selection is not on Yes"
		return d
	}
	switch pr.Kind {
	case PromptEdit:
		return pol.decideEdit(pr, d)
	case PromptCommand:
		return pol.decideCommand(pr, d)
	}
	d.Reason = "a question that is not a command or an edit is left to the owner"
	return d
}

func (pol *Policy) decideEdit(pr Prompt, d Decision) Decision {
	if !pol.allows("Edit") && !pol.allows("Write") {
		d.Reason = "edits are not on the allowlist"
		return d
	}
	if _, _, err := inFolder(pol.Folder, pr.Line); err != nil {
		d.Reason = "the file is outside the folder"
		return d
	}
	d.Approve, d.Reason = true, "an edit inside the folder"
	return d
}

func (pol *Policy) decideCommand(pr Prompt, d Decision) Decision {
	parts := splitCommand(pr.Line)
	if len(parts) == 0 {
		d.Reason = "no command"
		return d
	}
	var matched []string
	for _, part := range parts {
		if target, ok := redirectOutside(pol.Folder, part); ok {
			d.Reason = "writes outside the folder: " + target
			return d
		}
		entry := pol.match(part)
		if entry == "" {
			d.Reason = fmt.Sprintf("%q is not on the allowlist", clip(part, 80))
			return d
		}
		if entry == "git push" && !featurePush(part) {
			d.Reason = "a push names no feature branch"
			return d
		}
		matched = append(matched, entry)
	}
	d.Approve, d.Reason = true, "allowlist: "+strings.Join(matched, ", ")
	return d
}

// allows reports whether the allowlist holds entry exactly.
func (pol *Policy) allows(entry string) bool {
	for _, a := range pol.Allow {
		if strings.EqualFold(a, entry) {
			return true
		}
	}
	return false
}

// match returns the longest allowlist entry that part starts with, word
// by word, or "".
func (pol *Policy) match(part string) string {
	words := strings.Fields(part)
	best := ""
	for _, a := range pol.Allow {
		aw := strings.Fields(a)
		if len(aw) == 0 || len(aw) > len(words) {
			continue
		}
		ok := true
		for i, w := range aw {
			// A path in an entry allows what lies under it too
			// ("rm src/generated" allows "rm src/generated/x.go").
			under := i == len(aw)-1 && strings.Contains(w, "/") && strings.HasPrefix(words[i], strings.TrimSuffix(w, "/")+"/") && !strings.Contains(words[i], "..")
			if !strings.EqualFold(w, words[i]) && !under {
				ok = false
				break
			}
		}
		if ok && len(a) > len(best) {
			best = a
		}
	}
	return best
}

var commandSeparators = regexp.MustCompile(`&&|\|\||;|\||\n`)

// splitCommand cuts a command line at &&, ||, ;, | and new lines.
func splitCommand(line string) []string {
	var out []string
	for _, seg := range commandSeparators.Split(line, -1) {
		if s := strings.TrimSpace(seg); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var redirect = regexp.MustCompile(`\d?>>?\s*(\S+)`)

// redirectOutside reports a redirection of output to a file outside the
// folder.
func redirectOutside(folder, part string) (string, bool) {
	for _, m := range redirect.FindAllStringSubmatch(part, -1) {
		t := strings.Trim(m[1], `'"`)
		if t == "/dev/null" || strings.HasPrefix(t, "&") {
			continue
		}
		if _, _, err := inFolder(folder, t); err != nil {
			return t, true
		}
	}
	return "", false
}

// featurePush reports whether a git push names its branch, which the
// never-list has checked is not main or master.
func featurePush(part string) bool {
	var args []string
	for _, w := range strings.Fields(part)[2:] {
		if !strings.HasPrefix(w, "-") {
			args = append(args, w)
		}
	}
	return len(args) >= 2 // a remote and a branch (or refspec)
}

// normalize lower-cases text and collapses its spaces, so that a doubled
// space does not hide a command from the never-list.
func normalize(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.ToLower(s), "\n") {
		b.WriteString(strings.Join(strings.Fields(line), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
