package memstore_test

import (
	"testing"

	"desk/code"
	"desk/code/codetest"
	"desk/code/memstore"
)

func TestSuite(t *testing.T) {
	codetest.ObjectStores(t, func(t *testing.T) code.ObjectStores { return memstore.New() })
}
