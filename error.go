package desk

import (
	"errors"
	"fmt"
)

// Error codes. Every refusal desk makes carries one; one table per surface
// maps it to an HTTP status, an MCP error result or a CLI exit code.
const (
	Invalid   = "invalid"   // the input is wrong; nothing changed
	NotFound  = "not_found" // the project, issue or file does not exist
	Conflict  = "conflict"  // the input is fine but the state forbids it (a duplicate, a merged source)
	Forbidden = "forbidden" // the caller may not do this (an agent marking passed, a foreign origin)
	Internal  = "internal"  // a bug or an I/O failure; the message is for logs
)

// Error is desk's error: a code, a message for people and, where it helps an
// agent recover, a hint naming what to do instead ("set a location command
// first: set_location").
type Error struct {
	Code    string
	Message string
	Hint    string
	// Rule, where set, is the stable name of the rule that refused (a
	// pairing rule such as single_writer): agents and scripts act on it
	// without parsing the message.
	Rule string
}

// Error returns the message, followed by the hint when there is one.
func (e *Error) Error() string {
	if e.Hint != "" {
		return e.Message + " (" + e.Hint + ")"
	}
	return e.Message
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns a copy of e that carries hint.
func (e *Error) WithHint(hint string) *Error {
	c := *e
	c.Hint = hint
	return &c
}

// WithRule returns a copy of e that names the rule that refused.
func (e *Error) WithRule(rule string) *Error {
	c := *e
	c.Rule = rule
	return &c
}

// ErrorRule returns the rule a wrapped *Error names, or "".
func ErrorRule(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Rule
	}
	return ""
}

// ErrorCode returns the code of err: the code of a wrapped *Error, Internal
// for any other error and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return Internal
}

// ErrorMessage returns the text to show a client for err. Internal errors
// that are not *Error keep their detail out of answers; the edge logs them.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Error()
	}
	return "internal error"
}
