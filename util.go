package desk

import (
	"regexp"
	"strconv"
	"sync"
)

func itoa(i int) string { return strconv.Itoa(i) }

// LazyRegexp compiles a pattern the first time it is used: desk is also a
// hook that runs for a few milliseconds on every prompt, and most of its
// patterns are not needed there. Every package of desk compiles its
// patterns this way.
func LazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
