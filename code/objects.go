package code

import (
	"context"
	"fmt"
)

// ObjectStore keeps the objects of one repository by their ids. Objects
// never change and are never removed, so any number of processes may write
// the same object at once. The embedded desk keeps them in the data folder
// (package code/folderstore); a team server keeps them in S3.
//
// Every backend passes the suite of package code/codetest unchanged.
type ObjectStore interface {
	// Put stores objects. It checks every object's bytes against its id
	// first and stores none when one differs (Invalid). When it returns,
	// every object is durable. It returns how many were not there before.
	Put(ctx context.Context, objs ...Object) (int, error)
	// Get returns an object's bytes, checked against its id: NotFound when
	// the store does not hold it, Internal when the bytes it holds are
	// damaged.
	Get(ctx context.Context, t Type, id ID) ([]byte, error)
	// Has reports which of refs the store holds, in their order.
	Has(ctx context.Context, refs []Ref) ([]bool, error)
}

// ObjectStores gives each repository its own ObjectStore, under its own
// prefix, so that one repository's objects are never read through another.
type ObjectStores interface {
	// Objects returns the store of the repository with id repo.
	Objects(repo int64) ObjectStore
}

// RepoPrefix is the prefix of a repository's objects in a store shared by
// every repository: repo-<id>/, then objects/<type>/<2 chars>/<id>.
func RepoPrefix(repo int64) string { return fmt.Sprintf("repo-%d/", repo) }

// ObjectKey is where an object is kept under its repository's prefix.
func ObjectKey(t Type, id ID) string {
	s := id.String()
	return "objects/" + t.String() + "/" + s[:2] + "/" + s
}

// CheckAll refuses a batch of objects when one of them does not have its
// id, before any is stored.
func CheckAll(objs []Object) error {
	for _, o := range objs {
		if err := o.Check(); err != nil {
			return err
		}
	}
	return nil
}
