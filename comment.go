package desk

import (
	"bytes"
	"encoding/json"
	"mime"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Comment is something said on an issue. A verdict (passed or failed) is the
// owner's answer to a check and moves the issue's status.
type Comment struct {
	ID          int64         `json:"id"`
	Issue       string        `json:"issue,omitempty"`
	Author      string        `json:"author"`
	Text        string        `json:"text"`
	Verdict     *string       `json:"verdict"`
	CreatedAt   string        `json:"created_at"`
	Attachments []*Attachment `json:"attachments"`
	MergedFrom  *string       `json:"merged_from"`
}

// Attachment is a file on an issue or one of its comments.
type Attachment struct {
	ID         int64   `json:"id"`
	Issue      string  `json:"issue,omitempty"`
	CommentID  *int64  `json:"comment_id"`
	Filename   string  `json:"filename"`
	Mime       string  `json:"mime"`
	Size       int64   `json:"size"`
	URL        string  `json:"url"`
	IsImage    bool    `json:"is_image"`
	CreatedAt  string  `json:"created_at"`
	MergedFrom *string `json:"merged_from"`
	// Path is where the bytes are, relative to the data folder.
	Path string `json:"-"`
}

// Activity is one entry of an issue's timeline other than a comment: a status
// change, an edit, a plan change, a merge, a build, a command sent or picked up.
type Activity struct {
	ID         int64           `json:"id"`
	Actor      string          `json:"actor"`
	Action     string          `json:"action"`
	Detail     json.RawMessage `json:"detail"`
	CreatedAt  string          `json:"created_at"`
	MergedFrom *string         `json:"merged_from"`
}

// Activity actions.
const (
	ActCreated          = "created"
	ActStatus           = "status"
	ActEdited           = "edited"
	ActAttached         = "attached"
	ActDetached         = "detached"
	ActCommandSent      = "command_sent"
	ActCommandDelivered = "command_delivered"
	ActPlan             = "plan"
	ActParent           = "parent"
	ActChild            = "child"
	ActMergedInto       = "merged_into"
	ActMerged           = "merged"
	ActUnmerged         = "unmerged"
	ActBuild            = "build"
)

// CommentInput is a new comment.
type CommentInput struct {
	Author      string
	Text        string
	Verdict     string // "", "passed" or "failed"
	Attachments []AttachmentInput
}

// CheckAuthor refuses a comment's author of more than MaxAuthor characters
// (after white space is collapsed), the limit Pair Desk keeps: a name cut
// short would sign the comment with someone else's. Every surface's
// comments reach the store, which checks it.
func CheckAuthor(name string) error {
	if n := utf8.RuneCountInString(CollapseSpace(name)); n > MaxAuthor {
		return Errorf(Invalid, "author: %d characters, longer than the limit of %d", n, MaxAuthor).WithHint(
			"sign with a shorter name")
	}
	return nil
}

// AttachmentInput is a file to attach: its bytes, a name and the type the
// client declared. Image types are taken from the bytes, not the client.
type AttachmentInput struct {
	Filename string
	Mime     string
	Data     []byte
}

// SniffImage returns the image type that data starts with (png, jpeg, gif,
// webp), or "".
func SniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && bytes.Equal(data[0:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}

// SniffPDF reports whether data starts like a PDF file.
func SniffPDF(data []byte) bool { return bytes.HasPrefix(data, []byte("%PDF-")) }

// AttachmentMime decides the stored type of a file: the sniffed image type
// wins, then a declared type that is well formed, then a guess from the name.
func AttachmentMime(filename, declared string, data []byte) string {
	if m := SniffImage(data); m != "" {
		return m
	}
	if SniffPDF(data) {
		return "application/pdf"
	}
	if d, _, err := mime.ParseMediaType(declared); err == nil && strings.Contains(d, "/") {
		if strings.HasPrefix(d, "image/") {
			// An image type the bytes do not back up is not trusted.
			return "application/octet-stream"
		}
		return d
	}
	if m := mime.TypeByExtension(strings.ToLower(filepath.Ext(filename))); m != "" {
		if d, _, err := mime.ParseMediaType(m); err == nil && !strings.HasPrefix(d, "image/") {
			return d
		}
	}
	return "application/octet-stream"
}

// IsImageMime reports whether the web page may show a file of this type as an
// image.
func IsImageMime(m string) bool {
	switch m {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// CleanFilename keeps the base name of a client's file name, without control
// characters or path separators, and never empty.
func CleanFilename(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = filepath.Base(name)
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == '"' {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." {
		name = "file"
	}
	if len(name) > 200 {
		ext := filepath.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		name = name[:200-len(ext)] + ext
	}
	return name
}
