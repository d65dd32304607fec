package sqlite_test

import (
	"desk/code/folderstore"
	"path/filepath"
	"testing"

	"desk/code"
	"desk/code/codetest"
)

func TestCodeStore(t *testing.T) {
	codetest.Store(t, func(t *testing.T) code.Store { return MustOpen(t).Code() })
}

func TestCodeService(t *testing.T) {
	codetest.Service(t, func(t *testing.T) codetest.Backend {
		db := MustOpen(t)
		return codetest.Backend{Store: db.Code(), Objects: folderstore.New(filepath.Join(db.Dir(), "code"))}
	})
}
