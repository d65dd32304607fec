package mcp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"desk"
)

// attachable are the file types an agent may attach by path: screenshots
// and PDFs. The bytes decide, not the name: a file must also look like one
// of them inside.
var attachable = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".pdf": true}

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

func (s *server) readAttachment(p string) (desk.AttachmentInput, error) {
	var in desk.AttachmentInput
	name := strings.TrimSpace(p)
	ext := strings.ToLower(filepath.Ext(name))
	if !attachable[ext] {
		return in, argError("attachment_paths: %q is not a png, jpg, gif, webp or pdf file", name)
	}
	full := s.resolvePath(name)
	f, err := os.Open(full)
	if err != nil {
		return in, argError("attachment_paths: cannot open %q: %v", name, pathError(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return in, argError("attachment_paths: %q is not a file", name)
	}
	if info.Size() > desk.MaxAttachmentByPath {
		return in, argError("attachment_paths: %q is %d MB; the limit is %d MB", name, info.Size()>>20, desk.MaxAttachmentByPath>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, desk.MaxAttachmentByPath+1))
	if err != nil {
		return in, fmt.Errorf("read %s: %w", full, err)
	}
	if len(data) == 0 {
		return in, argError("attachment_paths: %q is empty", name)
	}
	if desk.SniffImage(data) == "" && !desk.SniffPDF(data) {
		return in, argError("attachment_paths: %q is not a PNG, JPEG, GIF, WebP or PDF file inside, whatever its name says", name)
	}
	return desk.AttachmentInput{Filename: filepath.Base(name), Data: data}, nil
}

// pathError keeps the reason of a file error without repeating the path.
func pathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
