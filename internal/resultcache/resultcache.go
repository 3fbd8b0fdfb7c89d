// Package resultcache keeps the results of expensive work (render
// observations, restore scenarios, pytest runs) in a folder, by a hash of
// every input that decides them, so that a later run with the same inputs
// reads the result instead of doing the work again.
//
// The folder is the CLI's TEMPLATE_VERIFY_CACHE_DIR (kept between CI runs
// with actions/cache) or the App's data folder. It travels in the context
// (WithRoot), so the checks need no global. Entries are written through a
// temporary file and a rename, so that a reader never sees half of one;
// a read is bounded, and reading an entry marks it used, so that Prune
// removes the entries used longest ago first. A cache that cannot be read
// or written costs a run, nothing else: its errors are dropped.
package resultcache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/formula-code/template-verify/internal/safefile"
)

// Env names the cache folder of the CLI and the Action.
const Env = "TEMPLATE_VERIFY_CACHE_DIR"

// maxEntry bounds an entry that is read back.
const maxEntry = 32 << 20

type rootKey struct{}

// WithRoot returns ctx with the cache folder root; "" keeps no cache.
func WithRoot(ctx context.Context, root string) context.Context {
	return context.WithValue(ctx, rootKey{}, root)
}

// Root is the cache folder of ctx, "" when there is none.
func Root(ctx context.Context) string {
	root, _ := ctx.Value(rootKey{}).(string)
	return root
}

// Dir is one kind of entry in the cache folder (a sub-folder of it). The
// zero Dir keeps nothing.
type Dir struct{ path string }

// Open is the sub-folder kind (for example "restore", "pytest/suite") of
// the cache folder of ctx; the zero Dir when ctx has none.
func Open(ctx context.Context, kind string) Dir {
	return At(Root(ctx), kind)
}

// At is the sub-folder kind of root; the zero Dir when root is "".
func At(root, kind string) Dir {
	if root == "" {
		return Dir{}
	}
	return Dir{path: filepath.Join(root, filepath.FromSlash(kind))}
}

// On reports whether d keeps anything.
func (d Dir) On() bool { return d.path != "" }

// Path is the folder of d, "" for the zero Dir.
func (d Dir) Path() string { return d.path }

// validKey reports whether key can name a file: hex digits and letters,
// no separator.
func validKey(key string) bool {
	return key != "" && len(key) <= 128 && !strings.ContainsAny(key, `/\.`+"\x00")
}

// Read returns the entry stored under key, at most 32 MiB; false when
// there is none, it is too big or d is off. Reading marks the entry used.
func (d Dir) Read(key string) ([]byte, bool) {
	if !d.On() || !validKey(key) {
		return nil, false
	}
	file := filepath.Join(d.path, key+".json")
	data, err := safefile.Read(file, maxEntry)
	if err != nil {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(file, now, now)
	return data, true
}

// Write stores v as JSON under key.
func (d Dir) Write(key string, v any) {
	if !d.On() || !validKey(key) {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	_ = WriteFile(filepath.Join(d.path, key+".json"), data)
}

// WriteFile writes data to file through a temporary file in its folder
// and a rename, so that a reader never sees half of it; it makes the
// folder.
func WriteFile(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// entry is one file of the cache folder, for Prune.
type entry struct {
	path string
	size int64
	used time.Time
}

// Prune removes entries of the folder root, those used longest ago
// first, until what is left takes at most budget bytes; it also removes
// temporary files an interrupted Write left an hour or more ago. It
// returns the bytes removed. A root that does not exist is empty.
func Prune(root string, budget int64) (int64, error) {
	var entries []entry
	var total int64
	stale := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !de.Type().IsRegular() {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		if strings.HasSuffix(p, ".tmp") {
			if info.ModTime().Before(stale) {
				_ = os.Remove(p)
			}
			return nil
		}
		entries = append(entries, entry{path: p, size: info.Size(), used: info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune the cache %s: %w", root, err)
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.used.Compare(b.used) })
	var removed int64
	for _, e := range entries {
		if total <= budget {
			break
		}
		if err := os.Remove(e.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("prune the cache: %w", err)
		}
		total -= e.size
		removed += e.size
	}
	return removed, nil
}
