package http

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"desk"
	"desk/web"
)

// pageCSP is the Content Security Policy of the page and everything it
// loads: nothing but desk's own files, no inline script or style.
const pageCSP = "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; " +
	"connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// assets are the web page's files, read once and kept with their tags.
type assets struct {
	files map[string]*asset
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

func newAssets(files fs.FS, token string) *assets {
	a := &assets{files: map[string]*asset{}}
	fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		if p == "index.html" {
			// The token goes into the page, where only desk's own origin
			// can read it.
			body = bytes.Replace(body, []byte(web.TokenMeta), []byte(`<meta name="desk-token" content="`+token+`">`), 1)
			body = bytes.ReplaceAll(body, []byte("{{version}}"), []byte(desk.Version))
		}
		ct := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) {
		case ".js", ".mjs":
			ct = "text/javascript; charset=utf-8"
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".html":
			ct = "text/html; charset=utf-8"
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		sum := sha256.Sum256(body)
		a.files["/"+p] = &asset{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	return a
}

// serveAsset serves the page's files; "/" is index.html.
func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.writeError(w, r, &httpError{http.StatusMethodNotAllowed, r.Method + " not allowed here; use GET"})
		return
	}
	p := r.URL.Path
	if p == "/" || p == "" {
		p = "/index.html"
	}
	a := s.assets.files[p]
	if a == nil || strings.Contains(p, "..") {
		s.writeError(w, r, desk.Errorf(desk.NotFound, "no page %s", r.URL.Path))
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Content-Type", a.contentType)
	if etagMatches(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", itoa(len(a.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(a.body)
	}
}
