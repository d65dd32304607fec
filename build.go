package desk

// Build is a project's current build: the player executable or build folder
// the owner plays, or a version string for a game that ships releases.
type Build struct {
	Number  int    `json:"number"` // counts the builds the project has published
	Label   string `json:"label"`
	Path    string `json:"path"`
	Commit  string `json:"commit"`
	BuiltAt string `json:"built_at"`
	SetAt   string `json:"set_at"`
	SetBy   string `json:"set_by"`
	// Local says whether the path exists on this machine; only the HTTP
	// layer fills it, because only it can act on the path, and it is null
	// elsewhere.
	Local *BuildLocal `json:"local"`
}

// BuildRef is the build an issue was handed to the owner in.
type BuildRef struct {
	Number  int         `json:"number"`
	Label   string      `json:"label"`
	Path    string      `json:"path"`
	Commit  string      `json:"commit"`
	BuiltAt string      `json:"built_at"`
	Local   *BuildLocal `json:"local"`
}

// Ref returns the stamp of b that issues carry.
func (b *Build) Ref() *BuildRef {
	if b == nil {
		return nil
	}
	return &BuildRef{Number: b.Number, Label: b.Label, Path: b.Path, Commit: b.Commit, BuiltAt: b.BuiltAt}
}

// BuildLocal says what a build path is on this machine and what the page
// may do with it.
type BuildLocal struct {
	Exists bool    `json:"exists"`
	Kind   *string `json:"kind"` // "file", "folder" or null
	Open   bool    `json:"open"`
	Run    bool    `json:"run"`
}

// BuildInput publishes a build.
type BuildInput struct {
	Path    string
	Commit  string
	Label   string
	BuiltAt string
	Author  string
}

// BuildResult answers a publication: which to_check issues got the build
// stamped, or Unchanged when the same build was already current.
type BuildResult struct {
	Project   string    `json:"project"`
	Build     *Build    `json:"build"`
	Stamped   []string  `json:"stamped"`
	Unchanged bool      `json:"unchanged"`
	Enabled   bool      `json:"builds_enabled"`
	Previous  *BuildRef `json:"-"`
}

// BuildState is a project's build setting as GET .../build answers it.
type BuildState struct {
	Project string `json:"project"`
	Build   *Build `json:"build"`
	Enabled bool   `json:"builds_enabled"`
}
