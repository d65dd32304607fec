package intake

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenName is the file in the data folder that holds the install's hook
// token. Only its owner can read it (mode 0600), so a report that carries
// the token comes from a process of the desk's own user.
const TokenName = "hooks-token"

// Token returns the data folder's hook token, creating it on first use.
// Two processes creating it at once agree on the one that was written
// first.
func Token(dataDir string) (string, error) {
	if t, err := ReadToken(dataDir); err == nil {
		return t, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	path := filepath.Join(dataDir, TokenName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return ReadToken(dataDir)
	}
	if err != nil {
		return "", fmt.Errorf("create the hook token: %w", err)
	}
	_, err = f.WriteString(tok + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("write the hook token: %w", err)
	}
	return tok, nil
}

// ReadToken returns the data folder's hook token without creating it.
func ReadToken(dataDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, TokenName))
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		// A token being written by another process reads empty for a
		// moment; treat it as absent rather than as a token.
		return "", fmt.Errorf("%s is empty: %w", TokenName, fs.ErrNotExist)
	}
	return tok, nil
}
