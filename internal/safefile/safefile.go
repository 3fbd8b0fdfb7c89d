// Package safefile reads files that code from a pull request could have
// written: a result file, a JUnit report, a file in a scenario tree. Such a
// file may be a symlink to a secret, a FIFO that blocks a reader forever, a
// device that never ends, or just very large. Every read here refuses what
// is not a regular file, never follows a symlink in the last path element,
// never leaves the folder it is given, and stops at a size limit.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrTooLarge is returned when a file is larger than the limit.
var ErrTooLarge = errors.New("file is larger than the limit")

// ErrNotRegular is returned for a symlink, FIFO, socket, device or folder.
var ErrNotRegular = errors.New("not a regular file")

// ErrOutside is returned for a name that leaves the folder it is read in.
var ErrOutside = errors.New("path leaves its folder")

// Read reads the regular file at path, at most max bytes. It does not
// follow a symlink at path and does not block on a FIFO.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, describe(path, err)
	}
	defer f.Close()
	return readOpen(f, path, max)
}

// ReadIn reads the file rel inside the folder root, at most max bytes. rel
// must be a relative, slash-separated path that stays inside root; no
// symlink on the way may lead out of root, and the file itself may not be
// a symlink.
func ReadIn(root, rel string, max int64) ([]byte, error) {
	clean, err := Inside(rel)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", root, err)
	}
	defer r.Close()
	full := filepath.Join(root, clean)
	// os.Root follows a symlink that stays inside root even with
	// O_NOFOLLOW, so look at the last element first, and check after the
	// open that the same file was opened.
	before, err := r.Lstat(clean)
	if err != nil {
		return nil, describe(full, err)
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is a %s: %w", full, kind(before.Mode()), ErrNotRegular)
	}
	f, err := r.OpenFile(clean, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, describe(full, err)
	}
	defer f.Close()
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		return nil, fmt.Errorf("%s changed while it was opened: %w", full, ErrNotRegular)
	}
	return readOpen(f, full, max)
}

// Inside checks that rel is a relative path that stays inside its folder
// and returns it cleaned, in the OS's form.
func Inside(rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) {
		return "", fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("%q is absolute: %w", rel, ErrOutside)
	}
	clean := filepath.Clean(filepath.FromSlash(rel))
	if !filepath.IsLocal(clean) {
		return "", fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	return clean, nil
}

func readOpen(f *os.File, name string, max int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is a %s: %w", name, kind(info.Mode()), ErrNotRegular)
	}
	if info.Size() > max {
		return nil, fmt.Errorf("%s has %d bytes, the limit is %d: %w", name, info.Size(), max, ErrTooLarge)
	}
	// The file can still grow while it is read: read one byte past the limit.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew past the limit of %d bytes: %w", name, max, ErrTooLarge)
	}
	return data, nil
}

// describe turns the error of an O_NOFOLLOW open of a symlink (ELOOP) into
// ErrNotRegular, and keeps every other error.
func describe(name string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s is a symlink: %w", name, ErrNotRegular)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
		return fmt.Errorf("%s: %w", name, ErrOutside)
	}
	return err
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "folder"
	default:
		return "special file"
	}
}
