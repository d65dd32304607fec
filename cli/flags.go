package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlags returns a flag set for command name whose help goes to stdout.
// The flag package also calls Usage after a parse error; then nothing is
// printed but desk's own one-line error.
func newFlags(name string, c *Context) *flag.FlagSet {
	fs := flag.NewFlagSet("desk "+name, flag.ContinueOnError)
	failed := &errSeen{}
	fs.SetOutput(failed)
	fs.Usage = func() {
		if failed.seen {
			failed.seen = false
			return
		}
		printFlags(c.Stdout, fs)
	}
	return fs
}

// errSeen notes that the flag package reported an error.
type errSeen struct{ seen bool }

func (e *errSeen) Write(p []byte) (int, error) {
	e.seen = true
	return len(p), nil
}

// printFlags writes a command's flags the way desk spells them: two dashes.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s [flags]\n\nFlags:\n", fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		arg := " VALUE"
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			arg = ""
		}
		fmt.Fprintf(w, "  --%s%s\n      %s\n", f.Name, arg, f.Usage)
	})
}

// errHelp is returned after a command printed its help.
var errHelp = errors.New("help shown")

// parseFlags parses args, letting flags and arguments mix in any order, and
// turns the flag package's errors into usage errors of one short line (a
// wrong flag's value is not echoed back).
func parseFlags(fs *flag.FlagSet, args []string) error {
	name := strings.TrimPrefix(fs.Name(), "desk ")
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return errHelp // the flag set has printed the help
		}
		if err != nil {
			return Usagef(name, "%s", flagProblem(err.Error()))
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// listFlag collects every use of a repeatable flag (--command, --label,
// --step, --attach) in order.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ", ") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// isSet reports whether flag name was given on the command line, so that
// an empty value ("--area ”") can clear a field while a missing flag
// leaves it alone.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// noArgs refuses positional arguments for commands that take none.
func noArgs(fs *flag.FlagSet, cmd string) error {
	if fs.NArg() > 0 {
		return Usagef(cmd, "unexpected argument %q", clipArg(fs.Arg(0)))
	}
	return nil
}

// clipArg keeps an argument echoed in an error short: a misplaced markdown
// body must not fill the terminal.
func clipArg(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// argCount checks the number of positional arguments; what names the
// missing ones.
func argCount(fs *flag.FlagSet, cmd string, min, max int, what string) error {
	switch {
	case fs.NArg() < min:
		return Usagef(cmd, "missing %s", what)
	case max >= 0 && fs.NArg() > max:
		return Usagef(cmd, "unexpected argument %q", clipArg(fs.Arg(max)))
	}
	return nil
}

// flagProblem rewrites the flag package's message in desk's words: flags
// with two dashes, and never the rejected value itself.
func flagProblem(msg string) string {
	if strings.HasPrefix(msg, "invalid value") {
		// invalid value "<value>" for flag -name: <reason>
		rest := msg[strings.LastIndex(msg, " for flag -")+len(" for flag -"):]
		name, reason, _ := strings.Cut(rest, ": ")
		if strings.Contains(reason, "parse error") || strings.Contains(reason, "invalid syntax") {
			reason = "not a number"
		}
		return "--" + name + ": " + reason
	}
	for _, p := range []string{"flag provided but not defined: -", "flag needs an argument: -"} {
		if strings.HasPrefix(msg, p) {
			flagName := strings.TrimPrefix(msg[len(p):], "-")
			if strings.HasPrefix(p, "flag provided") {
				return "unknown flag --" + clipArg(flagName)
			}
			return "--" + flagName + " needs a value"
		}
	}
	return msg
}
