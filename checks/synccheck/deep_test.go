package synccheck

import (
	"strings"
	"testing"
)

// TestDeepDataIsRefusedNotACrash: a data file of a PR nested a million
// levels deep is an error that names the file (the parsers' own depth
// limits), or no list, never a stack overflow; the Python reader keeps no
// stack of its own per level.
func TestDeepDataIsRefusedNotACrash(t *testing.T) {
	t.Parallel()
	const n = 1000000
	open, closed := strings.Repeat("[", n), strings.Repeat("]", n)
	tests := []struct {
		path, src, wantErr string
	}{
		{"deep.yaml", open + closed, "deep.yaml: yaml: yaml: exceeded max depth"},
		{"deep.json", open + closed, "deep.json: json: nested too deep"},
		{"deep.toml", "a = " + open + closed, "deep.toml: toml: toml: arrays and inline tables are nested more than"},
		{"deep.py", "X = " + open + closed, ""},
	}
	for _, tc := range tests {
		lists, err := ListsOf(tc.path, []byte(tc.src), false)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)) {
			t.Errorf("%s: error %v, want one starting %q", tc.path, err, tc.wantErr)
		}
		if len(lists) != 0 {
			t.Errorf("%s: %d lists from a file that holds none of 3 items", tc.path, len(lists))
		}
	}
}
