package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"desk"
)

// Launcher describes how desk starts one kind of managed session: where
// the CLI's binary lives, the flags of a launch, how its hooks reach
// this launch only, what its resume ids look like, how its permission
// bypass is asked for and which variable points it at a profile. Each
// client folder registers its own with RegisterLauncher, so that adding
// a client stays one folder.
type Launcher struct {
	Kind  string // the kind's name: claude, codex ..., bash, custom
	Title string // how people call it
	// Bin is the command looked for on PATH; Paths are where its
	// installers put it otherwise (~ is the home folder). The variable
	// DESK_<KIND>_BIN wins over both.
	Bin   string
	Paths []string
	// Approvals says the CLI asks before running tools, so that a
	// permission bypass means something for it.
	Approvals bool
	// Resume describes its resume ids; nil when it cannot resume.
	Resume *Resume
	// ProfileEnv is the variable that points the CLI at its whole
	// credentials and settings folder, "" when it has none desk knows.
	ProfileEnv string
	// Hooks says how hooks reach a launch: HooksLaunch, HooksInstalled or
	// HooksNone.
	Hooks string
	// Capture says where the resume id of a fresh launch is found:
	// CaptureHooks (the hooks' session ids), CaptureCodex (Codex's session
	// records), CaptureOpencode (opencode session list), or "".
	Capture string
	// Build adds the flags and variables of one launch.
	Build func(l *Launch) error
}

// How hooks reach a launch.
const (
	HooksLaunch    = "launch"    // handed to this launch alone (a settings flag)
	HooksInstalled = "installed" // the hooks desk install registered serve
	HooksNone      = "none"      // the kind reports nothing
)

// Where resume ids are captured from.
const (
	CaptureHooks    = "hooks"
	CaptureCodex    = "codex-records"
	CaptureOpencode = "opencode-list"
)

// Resume describes a CLI's resume ids.
type Resume struct {
	Form    string         // what an id looks like, for error messages: "a UUID"
	Pattern *regexp.Regexp // a valid id matches it whole
	MaxLen  int            // when not 0, the longest valid id in bytes
}

// Valid reports whether id has the form of this CLI's resume ids.
func (r *Resume) Valid(id string) bool {
	return r != nil && (r.MaxLen == 0 || len(id) <= r.MaxLen) && r.Pattern.MatchString(id)
}

// Resume id forms the CLIs share. TokenPattern bounds no length: a
// counted repetition like {0,127} compiles into 127 nested alternatives
// (118 KB and 1,700 allocations at every start of the binary), so the
// bound is TokenMaxLen, checked by Resume.MaxLen.
var (
	UUIDPattern  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	TokenPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// TokenMaxLen is the longest token id TokenPattern's users accept.
const TokenMaxLen = 128

// Launch is one launch being built: what the launcher knows, and the
// command line and environment the kind's Build completes.
type Launch struct {
	Bin     string   // the binary found
	Args    []string // the user's own arguments, after the kind's flags
	Bypass  bool
	Resume  string // the provider's id to resume, "" for a fresh start
	DataDir string
	DeskBin string
	// HookSettings is the path of desk's settings file for this kind,
	// written by the launcher when Hooks is HooksLaunch.
	HookSettings string

	// Build fills these: the flags before Args, and variables to set.
	Flags []string
	Env   map[string]string
}

var launchers = struct {
	sync.RWMutex
	m map[string]*Launcher
}{m: map[string]*Launcher{}}

// RegisterLauncher makes a kind known to the launcher. It is meant for
// init functions and panics on a duplicate kind.
func RegisterLauncher(l Launcher) {
	if !validName(l.Kind) || l.Build == nil {
		panic("agent: RegisterLauncher needs a kind of [a-z0-9-] and a Build")
	}
	launchers.Lock()
	defer launchers.Unlock()
	if _, dup := launchers.m[l.Kind]; dup {
		panic("agent: RegisterLauncher called twice for " + l.Kind)
	}
	launchers.m[l.Kind] = &l
}

// LauncherFor returns the launcher of a kind, or a not-found error that
// lists the kinds.
func LauncherFor(kind string) (*Launcher, error) {
	launchers.RLock()
	l := launchers.m[kind]
	launchers.RUnlock()
	if l == nil {
		return nil, desk.Errorf(desk.Invalid, "unknown session kind %q", clipKind(kind)).
			WithHint("kinds: " + strings.Join(LaunchKinds(), ", "))
	}
	return l, nil
}

func clipKind(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// LaunchKinds returns every kind desk can launch, sorted.
func LaunchKinds() []string {
	launchers.RLock()
	defer launchers.RUnlock()
	out := make([]string, 0, len(launchers.m))
	for k := range launchers.m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// BinEnv is the variable that names a kind's binary: DESK_CLAUDE_BIN.
func BinEnv(kind string) string {
	return "DESK_" + strings.ToUpper(strings.ReplaceAll(kind, "-", "_")) + "_BIN"
}

// Find returns the kind's binary: $DESK_<KIND>_BIN, else the first Bin on
// path (the PATH value given), else the first of Paths that exists. It
// returns an invalid error naming the places it looked.
func (l *Launcher) Find(getenv func(string) string, home string) (string, error) {
	if v := getenv(BinEnv(l.Kind)); v != "" {
		if isExec(v) {
			return v, nil
		}
		return "", desk.Errorf(desk.Invalid, "%s=%s is not an executable file", BinEnv(l.Kind), v).
			WithHint("point it at the " + l.Title + " binary, or unset it")
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, l.Bin); isExec(p) {
			return p, nil
		}
	}
	for _, p := range l.Paths {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home == "" {
				continue
			}
			p = filepath.Join(home, rest)
		}
		if isExec(p) {
			return p, nil
		}
	}
	return "", desk.Errorf(desk.Invalid, "%s is not installed: no %s on PATH or in %s", l.Title, l.Bin, strings.Join(l.Paths, ", ")).
		WithHint("install it, or set " + BinEnv(l.Kind) + " to its binary")
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// LookPath finds a command the way a shell would, for custom sessions.
func LookPath(name string, getenv func(string) string) (string, error) {
	if strings.Contains(name, "/") {
		if isExec(name) {
			return name, nil
		}
		return "", desk.Errorf(desk.Invalid, "%s is not an executable file", name)
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); isExec(p) {
			return p, nil
		}
	}
	return "", desk.Errorf(desk.Invalid, "command %q is not on PATH", clipKind(name)).WithHint("give its full path")
}

func init() {
	// A custom session runs any command as it is: no resume, no bypass,
	// no hooks. Its binary is the command's first word (see LookPath).
	RegisterLauncher(Launcher{Kind: "custom", Title: "a command", Hooks: HooksNone, Build: func(*Launch) error { return nil }})
}
