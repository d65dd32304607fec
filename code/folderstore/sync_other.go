//go:build !linux

package folderstore

func writeNew(path string, data []byte, durable bool) (bool, error) { return false, nil }
