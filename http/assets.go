package http

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
//
// The page names every other file under a prefix that changes whenever any
// of them does (/a/<digest>/js/app.js), and those addresses are cached
// for good: opening the desk again, or reloading it, then costs the page
// and the first list and nothing else. Without it a reload revalidates
// some sixty files, and the first list's request waits behind them for
// one of the browser's six connections. The modules import each other by
// relative paths, so they stay under the prefix of the page that loaded
// them. The plain addresses (/js/app.js) still answer, revalidated.
type assets struct {
	files  map[string]*asset
	prefix string // "/a/<digest>": the versioned root of every file but the page
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

func newAssets(files fs.FS, token string, servesCode bool) *assets {
	a := &assets{files: map[string]*asset{}}
	digest := sha256.New()
	var page []byte // index.html, written once the prefix is known
	fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		if p == "index.html" {
			page = body
			return nil
		}
		// WalkDir goes in lexical order: the same files give the same digest.
		fmt.Fprintf(digest, "%s\x00%d\x00", p, len(body))
		digest.Write(body)
		a.add(p, body)
		return nil
	})
	a.prefix = "/a/" + hex.EncodeToString(digest.Sum(nil)[:8])
	if page != nil {
		body := page
		// The token goes into the page, where only desk's own origin
		// can read it.
		body = bytes.Replace(body, []byte(web.TokenMeta), []byte(`<meta name="desk-token" content="`+token+`">`), 1)
		if servesCode {
			body = bytes.Replace(body, []byte(web.CodeMeta), []byte(`<meta name="desk-code" content="on">`), 1)
		}
		body = bytes.ReplaceAll(body, []byte("{{version}}"), []byte(desk.Version))
		for _, dir := range []string{`"/js/`, `"/css/`, `"/icon.svg"`} {
			body = bytes.ReplaceAll(body, []byte(dir), []byte(`"`+a.prefix+dir[1:]))
		}
		a.add("index.html", body)
	}
	return a
}

// add keeps the file at path p (relative to the page's root).
func (a *assets) add(p string, body []byte) {
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
	if s.opts.Team && (p == "/index.html" || p == "/device" || p == "/signin") {
		p = s.teamPage(r, p)
	}
	cache := "private, no-cache"
	if rest, ok := strings.CutPrefix(p, "/a/"); ok {
		// A file under a prefix: kept for good when the prefix is this
		// desk's. A page from before an upgrade asking with its old prefix
		// gets today's file, revalidated, never cached under that name.
		version, file, _ := strings.Cut(rest, "/")
		if "/a/"+version == s.assets.prefix {
			cache = "private, max-age=31536000, immutable"
		}
		p = "/" + file
		if p == "/index.html" {
			p = "" // the page itself is never under a prefix
		}
	}
	a := s.assets.files[p]
	if a == nil || strings.Contains(p, "..") {
		s.writeError(w, r, desk.Errorf(desk.NotFound, "no page %s", r.URL.Path))
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", cache)
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
