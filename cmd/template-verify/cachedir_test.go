package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/formula-code/template-verify/internal/resultcache"
)

// TestCacheDirFlag: --cache-dir wins over TEMPLATE_VERIFY_CACHE_DIR, the
// variable is the default, and a relative folder becomes absolute (the
// checks run in other working folders).
func TestCacheDirFlag(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, env string
		args      []string
		want      string
	}{
		{"neither", "", nil, ""},
		{"the variable", "/srv/cache", nil, "/srv/cache"},
		{"the flag wins", "/srv/cache", []string{"--cache-dir", "/tmp/c"}, "/tmp/c"},
		{"relative", "", []string{"--cache-dir", "tv-cache"}, filepath.Join(wd, "tv-cache")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(resultcache.Env, tc.env)
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			out := addOutputFlags(fs)
			if !out.parse(fs, append(tc.args, "--sandbox", "none"), io.Discard) {
				t.Fatal("parse failed")
			}
			if *out.cacheDir != tc.want {
				t.Errorf("cache folder %q, want %q", *out.cacheDir, tc.want)
			}
		})
	}
}
