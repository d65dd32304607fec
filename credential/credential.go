// Package credential keeps the tokens a person uses to reach desk servers:
// one token per server URL, in one file only its user may read.
//
// The file is <config>/desk/credentials.json, where <config> is
// $XDG_CONFIG_HOME, else ~/.config (%AppData% on Windows). It is written
// whole through a temporary file with mode 0600, and a file that other
// users could read is refused rather than used, since its tokens may have
// leaked. Tokens are never printed: Describe names a credential without it.
//
// desk login writes it; every command that talks to a server (the thin
// client of the code, and later every remote surface) reads it.
package credential

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"desk"
)

// FileName is the name of the credentials file in desk's config folder.
const FileName = "credentials.json"

// Path returns where the credentials of the user whose environment is
// getenv are kept.
func Path(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "desk", FileName), nil
	}
	if runtime.GOOS == "windows" {
		if d := getenv("AppData"); d != "" {
			return filepath.Join(d, "desk", FileName), nil
		}
	}
	home := getenv("HOME")
	if home == "" {
		return "", desk.Errorf(desk.Invalid, "HOME is not set, so there is no config folder for the credentials; set HOME or XDG_CONFIG_HOME")
	}
	return filepath.Join(home, ".config", "desk", FileName), nil
}

// Credential is the token of one server.
type Credential struct {
	Server  string    `json:"server"`
	Token   string    `json:"token"`
	Name    string    `json:"name,omitempty"` // the identity the token stands for, as the server said
	SavedAt time.Time `json:"saved_at"`
}

// Describe names the credential for a person, without its token.
func (c Credential) Describe() string {
	if c.Name == "" {
		return c.Server
	}
	return c.Name + " on " + c.Server
}

// file is the stored form.
type file struct {
	Default string                 `json:"default"` // the server of the newest login
	Servers map[string]*Credential `json:"servers"`
}

// Store is the credentials file of one user.
type Store struct {
	path string
}

// Open returns the store kept in the file at path. Nothing is read yet.
func Open(path string) *Store { return &Store{path: path} }

// OpenDefault returns the store of the user whose environment is getenv.
func OpenDefault(getenv func(string) string) (*Store, error) {
	p, err := Path(getenv)
	if err != nil {
		return nil, err
	}
	return Open(p), nil
}

// File returns the path of the store's file.
func (s *Store) File() string { return s.path }

// NormalizeServer returns a server's URL as the store keys it: scheme and
// host in lower case, no trailing slash, no credentials, query or
// fragment. It refuses anything but an http or https URL with a host.
func NormalizeServer(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw != "" && !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", desk.Errorf(desk.Invalid, "%q is not a server's URL: give http://HOST:PORT or https://HOST", clipped(raw))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", desk.Errorf(desk.Invalid, "a server's URL holds no user, query or fragment: give %s://%s%s", u.Scheme, u.Host, u.Path)
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimRight(u.Path, "/"), nil
}

func (s *Store) read() (*file, error) {
	f := &file{Servers: map[string]*Credential{}}
	fi, err := os.Lstat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the credentials: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, desk.Errorf(desk.Invalid, "%s is not a plain file; remove it and run desk login again", s.path)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, desk.Errorf(desk.Forbidden, "%s can be read by other users (mode %04o), so its tokens may have leaked: revoke them, remove the file and run desk login again", s.path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return nil, fmt.Errorf("read the credentials: %w", err)
	}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, desk.Errorf(desk.Invalid, "%s is not a credentials file (%v); remove it and run desk login again", s.path, err)
	}
	if f.Servers == nil {
		f.Servers = map[string]*Credential{}
	}
	return f, nil
}

func (s *Store) write(f *file) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the config folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".credentials-*")
	if err != nil {
		return fmt.Errorf("keep the credentials: %w", err)
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(append(b, '\n'))
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path)
	}
	if err != nil {
		return fmt.Errorf("keep the credentials: %w", err)
	}
	return nil
}

// Save keeps c (its server normalized), replacing the server's earlier
// token, and makes it the default server.
func (s *Store) Save(c Credential) error {
	server, err := NormalizeServer(c.Server)
	if err != nil {
		return err
	}
	if strings.TrimSpace(c.Token) == "" {
		return desk.Errorf(desk.Invalid, "the token is empty")
	}
	f, err := s.read()
	if err != nil {
		return err
	}
	c.Server = server
	c.Token = strings.TrimSpace(c.Token)
	if c.SavedAt.IsZero() {
		c.SavedAt = time.Now().UTC()
	}
	f.Servers[server] = &c
	f.Default = server
	return s.write(f)
}

// Get returns the credential of a server. NotFound when there is none.
func (s *Store) Get(server string) (*Credential, error) {
	server, err := NormalizeServer(server)
	if err != nil {
		return nil, err
	}
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	c := f.Servers[server]
	if c == nil {
		return nil, desk.Errorf(desk.NotFound, "no login for %s: run desk login %s", server, server)
	}
	return c, nil
}

// Default returns the credential of the newest login. NotFound when there
// is none.
func (s *Store) Default() (*Credential, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	if c := f.Servers[f.Default]; c != nil {
		return c, nil
	}
	return nil, desk.Errorf(desk.NotFound, "no login yet: run desk login (the local desk) or desk login SERVER")
}

// List returns every credential by server.
func (s *Store) List() ([]Credential, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	out := make([]Credential, 0, len(f.Servers))
	for _, c := range f.Servers {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out, nil
}

// Remove forgets a server's token; it reports whether there was one.
func (s *Store) Remove(server string) (bool, error) {
	server, err := NormalizeServer(server)
	if err != nil {
		return false, err
	}
	f, err := s.read()
	if err != nil {
		return false, err
	}
	if f.Servers[server] == nil {
		return false, nil
	}
	delete(f.Servers, server)
	if f.Default == server {
		f.Default = ""
	}
	return true, s.write(f)
}

func clipped(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
