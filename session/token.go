package session

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"desk/link"
)

// TokenName is the file in the data folder that keeps the terminal token:
// the secret that lets a client other than desk's own page (a phone, a
// bookmark, a script) launch sessions, type into them and watch their
// terminals. It is kept across restarts so that a bookmarked URL keeps
// working, and readable by its owner only.
const TokenName = "terminal-token"

// TerminalToken returns the data folder's terminal token, creating it on
// first use.
func TerminalToken(dataDir string) (string, error) {
	path := filepath.Join(dataDir, TokenName)
	b, err := os.ReadFile(path)
	if err == nil {
		if tok := strings.TrimSpace(string(b)); len(tok) >= 32 {
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
				os.Chmod(path, 0o600)
			}
			return tok, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(raw[:])
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", err
	}
	if err := link.WriteFileAtomic(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return tok, nil
}
