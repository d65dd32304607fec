package agent

import (
	"strings"
	"testing"
)

// TestResumeTokenMaxLen holds the token form to what the counted pattern
// it replaced accepted: a letter or digit, then up to 127 of [A-Za-z0-9_.-].
func TestResumeTokenMaxLen(t *testing.T) {
	r := &Resume{Form: "a token", Pattern: TokenPattern, MaxLen: TokenMaxLen}
	for id, want := range map[string]bool{
		"session_abc.1-2":              true,
		"a" + strings.Repeat("b", 127): true,
		"a" + strings.Repeat("b", 128): false,
		"":                             false,
		"_leading":                     false,
		"has space":                    false,
		"x/y":                          false,
	} {
		if got := r.Valid(id); got != want {
			t.Errorf("Valid(%q) = %v, want %v", id, got, want)
		}
	}
}
