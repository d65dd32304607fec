package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// newFlags returns a flag set for command name whose help goes to stdout.
func newFlags(name string, c *Context) *flag.FlagSet {
	fs := flag.NewFlagSet("desk "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fs.SetOutput(c.Stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
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
			fs.Usage()
			return errHelp
		}
		if err != nil {
			msg := err.Error()
			if i := strings.Index(msg, ": "); i > 0 && strings.HasPrefix(msg, "invalid value") {
				msg = msg[:i]
			}
			return Usagef(name, "%s", msg)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}
