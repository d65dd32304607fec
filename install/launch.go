package install

// LaunchHooks returns the settings document, in Claude Code's shape
// ({"hooks": {...}}), that hands desk's hooks to one launch of client:
// the same hooks desk install registers, with the data folder always
// named, so that a session desk starts reports to the desk that started
// it whatever the user's own settings say. The launcher writes it to a
// file of desk's own and passes it with the client's settings flag.
func LaunchHooks(client, deskBin, dataDir string) []byte {
	c := &installCtx{env: &Env{Desk: deskBin, Data: dataDir, Home: "\x00"}}
	return []byte(jsonText(hooksDocument(c.hookSpecs(client), 1)))
}
