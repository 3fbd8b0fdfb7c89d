package app

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/formula-code/template-verify/internal/resultcache"
	"github.com/formula-code/template-verify/internal/safefile"
)

// The results cache of the App: a folder per repository in the data
// folder, handed to each verification (verify.Options.CacheDir), and the
// database's copy of it, which replicas share. Before a verification the
// entries the database keeps for the repository and the folder lacks are
// written to the folder; after it, the entries the verification wrote or
// used go back to the database. A push verified on one replica so reuses
// what a verification on another kept. The cache only saves work: its
// errors are logged, never a verification's failure.

// cacheEntry is one file of a repository's cache folder: its path in the
// folder (slash-separated) and its JSON text.
type cacheEntry struct {
	name string
	data string
}

const (
	// maxCacheEntry bounds one entry that goes to or comes from the
	// database.
	maxCacheEntry = 8 << 20
	// maxCacheSync bounds what one verification reads from the
	// database, and what it stores.
	maxCacheSync = 64 << 20
)

// cacheName is the form of an entry's name: kind folders, a hex key.
var cacheName = regexp.MustCompile(`^[a-z]+(/[a-z]+)*/[0-9a-f]{16,128}\.json$`)

// cacheRoot is the results cache of the data folder. Each repository has
// its own folder in it (cacheDir), so that a result is only ever reused
// for the repository that produced it.
func (s *server) cacheRoot() string { return filepath.Join(s.cfg.DataDir, "cache") }

// cacheDir is the cache folder of j's repository, pruned to the size
// budget and filled from the database first; "" when the cache is off or
// the names cannot name a folder. A cache that cannot be pruned or filled
// is still used: what it costs is disk or a run, and the next
// verification tries again.
func (s *server) cacheDir(ctx context.Context, j *Job, log *slog.Logger) string {
	if s.cfg.cacheBytes() < 0 || !folderName(j.Owner) || !folderName(j.Repo) {
		return ""
	}
	if n, err := resultcache.Prune(s.cacheRoot(), s.cfg.cacheBytes()); err != nil {
		log.Warn("prune the results cache", "error", err)
	} else if n > 0 {
		log.Info("results cache pruned", "bytes", n)
	}
	dir := filepath.Join(s.cacheRoot(), j.Owner, j.Repo)
	entries, err := s.q.cacheEntries(ctx, j.FullName(), min(maxCacheSync, s.cfg.cacheBytes()))
	if err != nil {
		log.Warn("read the results cache from the database", "error", err)
		return dir
	}
	added := 0
	for _, e := range entries {
		if !cacheName.MatchString(e.name) || len(e.data) > maxCacheEntry {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(e.name))
		if _, err := os.Stat(file); err == nil {
			continue
		}
		if err := resultcache.WriteFile(file, []byte(e.data)); err != nil {
			log.Warn("write a results cache entry", "error", err)
			continue
		}
		// Older than the verification: it goes back to the database
		// only when the verification reads it (which marks it used).
		old := time.Now().Add(-24 * time.Hour)
		_ = os.Chtimes(file, old, old)
		added++
	}
	if added > 0 {
		log.Info("results cache entries from the database", "count", added)
	}
	return dir
}

// keepCache stores in the database the entries of dir that the
// verification wrote or used (their modification time is since or later).
func (s *server) keepCache(ctx context.Context, j *Job, dir string, since time.Time, log *slog.Logger) {
	if dir == "" {
		return
	}
	var entries []cacheEntry
	var total int64
	err := filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
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
		if err != nil || info.ModTime().Before(since) || info.Size() > maxCacheEntry || total+info.Size() > maxCacheSync {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || !cacheName.MatchString(filepath.ToSlash(rel)) {
			return nil
		}
		data, err := safefile.Read(p, maxCacheEntry)
		if err != nil {
			return nil
		}
		total += int64(len(data))
		entries = append(entries, cacheEntry{name: filepath.ToSlash(rel), data: string(data)})
		return nil
	})
	if err == nil && len(entries) > 0 {
		err = s.q.keepCache(ctx, j.FullName(), entries)
	}
	if err != nil {
		log.Warn("keep the results cache in the database", "error", err)
	}
}

// folderName reports whether an owner or repository name is one folder.
func folderName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}
