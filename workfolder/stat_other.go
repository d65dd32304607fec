//go:build !linux

package workfolder

import (
	"os"
	"path/filepath"
)

func readNames(dir string) ([]string, int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, -1, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	return names, -1, err
}

func closeDir(int) {}

func statAt(_ int, dir, name string) (Stat, int, error) {
	fi, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		return Stat{}, 0, err
	}
	mode, kind := modeOf(fi.Mode())
	return Stat{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Mode: mode}, kind, nil
}

func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }
