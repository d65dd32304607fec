package session

// plainScan is the state of the fast path for plain text (see skipPlain).
type plainScan struct{}

// skipPlain returns the part of chunk the emulator must see.
func (s *Screen) skipPlain(chunk []byte) []byte { return chunk }
