package folder_test

import (
	"testing"

	"desk"
	"desk/blobtest"
	"desk/folder"
)

func TestBlobSuite(t *testing.T) {
	blobtest.Run(t, func(tb testing.TB) desk.Blobs { return folder.New(tb.TempDir()) })
}
