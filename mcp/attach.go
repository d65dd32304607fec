package mcp

import (
	"strings"

	"desk"
	"desk/attachpath"
)

// maxAttachPaths bounds the files one call attaches.
const maxAttachPaths = 20

// pAttach is the attachment_paths param.
var pAttach = param{name: "attachment_paths", typ: tArray, items: map[string]any{"type": tString},
	desc: "screenshots or PDFs to attach (png, jpg, gif, webp, pdf; up to 25 MB each), relative to the repo"}

// attachments reads the files a call names in attachment_paths. Every file
// is checked before any is used, so a bad one changes nothing.
func (s *server) attachments(paths []string) ([]desk.AttachmentInput, error) {
	if len(paths) > maxAttachPaths {
		return nil, argError("attachment_paths: at most %d files in one call", maxAttachPaths)
	}
	var out []desk.AttachmentInput
	for _, p := range paths {
		f, err := s.readAttachment(p)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// readAttachment reads one file by the rule every surface shares
// (attachpath), relative to the agent's repo.
func (s *server) readAttachment(p string) (desk.AttachmentInput, error) {
	in, err := attachpath.Read(strings.TrimSpace(p), s.attachDirs()...)
	if err != nil {
		return in, argError("attachment_paths: %s", desk.ErrorMessage(err))
	}
	return in, nil
}
