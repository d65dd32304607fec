// Package cli is desk's command line: one Main that reads the global flags,
// finds the data folder and runs a command. Commands work on the data folder
// directly, with or without a running server.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"desk"
)

// Env is what a command may use of the world: its streams, its working
// folder and its environment. Tests give their own.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Dir            string              // the working folder
	Getenv         func(string) string // the environment
	Environ        []string            // the whole environment, for child processes
}

// OSEnv returns the process's own environment.
func OSEnv() Env {
	dir, _ := os.Getwd()
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Dir: dir, Getenv: os.Getenv, Environ: os.Environ()}
}

// Exit codes, by kind of error, so that scripts can tell them apart.
const (
	ExitOK        = 0
	ExitInternal  = 1
	ExitUsage     = 2
	ExitInvalid   = 3
	ExitNotFound  = 4
	ExitConflict  = 5
	ExitForbidden = 6
)

var exitOf = map[string]int{
	desk.Invalid:   ExitInvalid,
	desk.NotFound:  ExitNotFound,
	desk.Conflict:  ExitConflict,
	desk.Forbidden: ExitForbidden,
	desk.Internal:  ExitInternal,
}

// UsageError is a mistake in the command line itself.
type UsageError struct {
	Msg string
	Try string // the command to read about, e.g. "desk add --help"
}

func (e *UsageError) Error() string {
	if e.Try != "" {
		return e.Msg + "; try: " + e.Try
	}
	return e.Msg
}

// Usagef returns a UsageError for command cmd.
func Usagef(cmd, format string, args ...any) error {
	try := "desk help"
	if cmd != "" {
		try = "desk " + cmd + " --help"
	}
	return &UsageError{Msg: fmt.Sprintf(format, args...), Try: try}
}

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string // one line for the command list
	Run     func(ctx context.Context, c *Context, args []string) error
}

// Context is what a running command gets: the environment and the data
// folder chosen by the global flags.
type Context struct {
	Env
	DataDir string
	// DataSet says the folder was chosen explicitly (flag or DESK_DATA).
	DataSet bool
}

var commands = map[string]*Command{}

// longRunning are the commands that run until stopped; they keep the
// runtime's default memory settings.
var longRunning = map[string]bool{"serve": true, "mcp": true, "hold": true}

// concurrent are the short-lived commands that do several things at once
// (the load driver runs twenty clients); the others run on one processor.
var concurrent = map[string]bool{"bench": true}

// Register adds a command; packages that provide commands (the MCP
// server, the hooks, the installers) are wired in commands.go.
func Register(c *Command) { commands[c.Name] = c }

// Main runs the command line args and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	c := &Context{Env: env}
	rest, err := globalFlags(c, args)
	if err == nil {
		err = run(ctx, c, rest)
	}
	if err == nil || errors.Is(err, errHelp) {
		return ExitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		return int(ee) // the command has said why
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		fmt.Fprintln(env.Stderr, "desk: "+oneLine(ue.Error()))
		return ExitUsage
	}
	fmt.Fprintln(env.Stderr, "desk: "+oneLine(desk.ErrorMessage(err)+internalDetail(err)))
	if code, ok := exitOf[desk.ErrorCode(err)]; ok {
		return code
	}
	return ExitInternal
}

// internalDetail keeps the cause of an internal error on the command line,
// where the person who ran it is the one who needs it.
func internalDetail(err error) string {
	var e *desk.Error
	if errors.As(err, &e) {
		return ""
	}
	return ": " + err.Error()
}

// oneLine folds an error onto one line of reasonable length: a wrong flag
// must never echo a whole markdown body back.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:397] + "..."
	}
	return s
}

// globalFlags takes --data DIR (or --data=DIR) from anywhere in args and
// returns the rest.
func globalFlags(c *Context, args []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			i = len(args)
		case a == "--data" || a == "-data":
			if i+1 >= len(args) || args[i+1] == "" {
				return nil, Usagef("", "--data needs a folder")
			}
			c.DataDir, c.DataSet = args[i+1], true
			i++
		case strings.HasPrefix(a, "--data=") || strings.HasPrefix(a, "-data="):
			_, v, _ := strings.Cut(a, "=")
			if v == "" {
				return nil, Usagef("", "--data needs a folder")
			}
			c.DataDir, c.DataSet = v, true
		default:
			rest = append(rest, a)
		}
	}
	if c.DataDir == "" {
		if d := c.Getenv("DESK_DATA"); d != "" {
			c.DataDir, c.DataSet = d, true
		} else {
			c.DataDir = DefaultDataDir(c.Getenv)
		}
	}
	if !filepath.IsAbs(c.DataDir) && c.Dir != "" {
		c.DataDir = filepath.Join(c.Dir, c.DataDir)
	}
	return rest, nil
}

// DefaultDataDir is ~/.desk, or %LOCALAPPDATA%\Desk on Windows.
func DefaultDataDir(getenv func(string) string) string {
	if runtime.GOOS == "windows" {
		if d := getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "Desk")
		}
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".desk")
}

func run(ctx context.Context, c *Context, args []string) error {
	if len(args) == 0 {
		printHelp(c.Stdout)
		return nil
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		printHelp(c.Stdout)
		return nil
	case "version", "--version":
		fmt.Fprintln(c.Stdout, "desk "+desk.Version)
		return nil
	}
	cmd := commands[name]
	if cmd == nil {
		return &UsageError{Msg: fmt.Sprintf("unknown command %q", name), Try: "desk help"}
	}
	if !longRunning[name] {
		// A command lives for milliseconds: collecting garbage less often
		// is most of a list's wall time on a small machine, and the memory
		// limit still bounds a large import or export.
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(1 << 30)
		// It also does one thing at a time: a second processor only adds
		// the wake-ups of threads that find nothing to run (about 1 ms of
		// a list or a hook here).
		if !concurrent[name] && os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(1)
		}
	}
	return cmd.Run(ctx, c, args[1:])
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "desk %s: the table between you and your coding agents.\n\nUsage: desk [--data DIR] <command> [flags]\n\nCommands:\n", desk.Version)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nThe data folder is --data, else $DESK_DATA, else ~/.desk. Run desk <command> --help for a command's flags.")
}
