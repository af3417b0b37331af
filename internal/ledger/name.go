package ledger

// FileName is the name of session's record in the ledger's directory: the
// guard removes it by this name, relative to a descriptor of the
// directory.
func FileName(session string) string { return session + ".json" }
