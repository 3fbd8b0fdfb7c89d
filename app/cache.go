package app

import (
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/formula-code/template-verify/internal/resultcache"
)

// cacheRoot is the results cache of the data folder. Each repository has
// its own folder in it (cacheDir), so that a result is only ever reused
// for the repository that produced it.
func (s *server) cacheRoot() string { return filepath.Join(s.cfg.DataDir, "cache") }

// cacheDir is the cache folder of j's repository, pruned to the size
// budget first; "" when the cache is off or the names cannot name a
// folder. A cache that cannot be pruned is still used: what it costs is
// disk, and the next verification tries again.
func (s *server) cacheDir(j *Job, log *slog.Logger) string {
	if s.cfg.cacheBytes() < 0 || !folderName(j.Owner) || !folderName(j.Repo) {
		return ""
	}
	if n, err := resultcache.Prune(s.cacheRoot(), s.cfg.cacheBytes()); err != nil {
		log.Warn("prune the results cache", "error", err)
	} else if n > 0 {
		log.Info("results cache pruned", "bytes", n)
	}
	return filepath.Join(s.cacheRoot(), j.Owner, j.Repo)
}

// folderName reports whether an owner or repository name is one folder.
func folderName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}
