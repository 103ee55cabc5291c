// Package atomicfile writes files whole: each goes through a temporary
// file beside its target (NAME.partial-*, left in sight if the process is
// killed meanwhile) and into place in one step, so that a reader never
// sees half a file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is Create's error for a path that exists.
var ErrExists = fs.ErrExist

// Replace writes b to path, replacing a file there (a shard run again
// writes its file anew). The folder must exist.
func Replace(path string, b []byte) error {
	tmp, err := temp(path, b)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Create writes b to path, which must not exist: the temporary file is
// hard-linked into place, which fails when path exists, so nothing is
// overwritten; where hard links are unsupported it is renamed after a
// check that path does not exist. Its error for an existing path wraps
// ErrExists.
func Create(path string, b []byte) error {
	tmp, err := temp(path, b)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	return os.Rename(tmp, path)
}

// temp writes b, synced, to a temporary file beside path, readable by
// all as the files it stands for are, and returns its name.
func temp(path string, b []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".partial-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
