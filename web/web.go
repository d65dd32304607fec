// Package web holds the browser UI of desk: plain HTML, CSS and ES modules,
// embedded in the binary so that running desk needs nothing else. There is
// no build step; the files under static are what the browser loads.
//
// The server serves static/<path> at /<path> and static/index.html at /,
// with the page token written into index.html's
// <meta name="desk-token" content=""> (see TokenMeta).
package web

import "embed"

// Static holds the UI's files under the folder "static".
//
//go:embed static
var Static embed.FS

// TokenMeta is the exact text of index.html that the server replaces with a
// meta element carrying the per-run token, which build open/run requests
// send back as the X-Desk-Token header.
const TokenMeta = `<meta name="desk-token" content="">`

// CodeMeta is the exact text of index.html that the server replaces with
// content="on" when it serves code (the /v1 routes), so that a page on a
// desk with no object store never asks for what would answer 501.
const CodeMeta = `<meta name="desk-code" content="">`
