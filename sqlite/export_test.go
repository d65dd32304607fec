package sqlite

// PatchEverySearch makes kept searches be patched whatever their size and
// cost, for tests on small desks, until the returned function is called.
func PatchEverySearch() (restore func()) {
	old := minPatchedMatches
	minPatchedMatches = 0
	return func() { minPatchedMatches = old }
}

// QueryEachIssuesComments makes a patched search look at each changed
// issue's comments with a query of its own, until the returned function is
// called: the spans of a small desk's issues are all one.
func QueryEachIssuesComments() (restore func()) {
	old := commentSpanGap
	commentSpanGap = 0
	return func() { commentSpanGap = old }
}

// PatchedSearches is how many kept searches db has patched.
func (db *DB) PatchedSearches() int64 { return db.searches.patches.Load() }

// ReusedTextMatches is how many full-text queries of the issues' own text
// db answered from what it kept.
func (db *DB) ReusedTextMatches() int64 { return db.textMatches.reused.Load() }

// PatchedLists is how many kept lists db has patched.
func (db *DB) PatchedLists() int64 { return db.lists.patches.Load() }

// MisplacedListRows is how many patches of kept lists db gave up because
// a row was not where its key says.
func (db *DB) MisplacedListRows() int64 { return db.lists.misplaced.Load() }
