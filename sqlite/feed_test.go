package sqlite_test

import (
	"context"
	"sync"
	"testing"

	"desk/sqlite"
)

func TestOpeningANewFolderConcurrentlyMigratesOnce(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sqlite.Open(context.Background(), dir, sqlite.Options{})
			if err != nil {
				errs <- err
				return
			}
			db.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestNoCreate(t *testing.T) {
	dir := t.TempDir() + "/missing"
	if _, err := sqlite.Open(context.Background(), dir, sqlite.Options{NoCreate: true}); err == nil {
		t.Fatal("opened a desk that does not exist")
	}
	if _, err := sqlite.Open(context.Background(), dir, sqlite.Options{NoCreate: true}); err == nil {
		t.Fatal("second try")
	}
}
