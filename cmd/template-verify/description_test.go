package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadDescription: run --description reads the file; no flag is an
// empty description; a missing or oversized file is a usage error.
func TestReadDescription(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := filepath.Join(dir, "body.md")
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(ok, []byte("## Purpose\n\nA fix.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(strings.Repeat("x", maxDescription+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, want string
		err              bool
	}{
		{"no flag", "", "", false},
		{"a file", ok, "## Purpose\n\nA fix.\n", false},
		{"missing", filepath.Join(dir, "none.md"), "", true},
		{"too large", big, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := readDescription(tc.file)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("readDescription(%q) = %q, %v; want %q, error %v", tc.file, got, err, tc.want, tc.err)
			}
		})
	}
}
