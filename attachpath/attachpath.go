// Package attachpath reads the local files that the command line, the MCP
// tools and imports attach by path. Only the surfaces that run on the
// owner's own machine read paths (the HTTP API never does), and they accept
// only what a check needs: screenshots and PDFs, checked by their name and
// by their bytes, up to desk.MaxAttachmentByPath.
package attachpath

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"desk"
)

// types maps the accepted extensions to the content they must have.
var types = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".pdf": "application/pdf",
}

// Resolve finds the file name stands for: an absolute path as it is, a
// relative one in the first of dirs where it exists (the first dir when it
// exists nowhere, so the error names the likeliest place).
func Resolve(name string, dirs ...string) string {
	if filepath.IsAbs(name) || len(dirs) == 0 {
		return name
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(dirs[0], name)
}

// Read reads the file name (resolved as Resolve does) for attaching. It
// refuses anything but a png, jpg, gif, webp or pdf whose bytes are what its
// extension says, an empty file, and one over desk.MaxAttachmentByPath,
// with an Invalid error that names the file and the problem.
func Read(name string, dirs ...string) (desk.AttachmentInput, error) {
	var in desk.AttachmentInput
	path := Resolve(name, dirs...)
	want, ok := types[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return in, desk.Errorf(desk.Invalid, "%s: only png, jpg, gif, webp and pdf files can be attached by path", name)
	}
	f, err := os.Open(path)
	if err != nil {
		return in, desk.Errorf(desk.Invalid, "%s: %s", name, ioProblem(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return in, desk.Errorf(desk.Invalid, "%s: %s", name, ioProblem(err))
	}
	if fi.IsDir() {
		return in, desk.Errorf(desk.Invalid, "%s: is a folder, not a file", name)
	}
	if fi.Size() > desk.MaxAttachmentByPath {
		return in, desk.Errorf(desk.Invalid, "%s: %d bytes is over the limit of %d MB for a file attached by path", name, fi.Size(), desk.MaxAttachmentByPath>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, desk.MaxAttachmentByPath+1))
	if err != nil {
		return in, desk.Errorf(desk.Invalid, "%s: %s", name, ioProblem(err))
	}
	if len(data) > desk.MaxAttachmentByPath {
		return in, desk.Errorf(desk.Invalid, "%s: over the limit of %d MB for a file attached by path", name, desk.MaxAttachmentByPath>>20)
	}
	if len(data) == 0 {
		return in, desk.Errorf(desk.Invalid, "%s: the file is empty", name)
	}
	got := desk.SniffImage(data)
	if got == "" && desk.SniffPDF(data) {
		got = "application/pdf"
	}
	if got != want {
		what := "not a known image or PDF"
		if got != "" {
			what = got
		}
		return in, desk.Errorf(desk.Invalid, "%s: the name says %s but the content is %s", name, want, what)
	}
	return desk.AttachmentInput{Filename: filepath.Base(path), Mime: got, Data: data}, nil
}

func ioProblem(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return fmt.Sprint(err)
}
