package config

import (
	"strings"
	"testing"
)

func TestSyncAndNamesBlocks(t *testing.T) {
	tests := []struct {
		name, yaml   string
		wantErr      string
		wantExplicit bool
		wantSyncOff  bool
		wantNamesOff bool
		wantGroups   int
	}{
		{name: "absent: datasmith's default", yaml: "version: 1\n", wantGroups: 1},
		{name: "a file's block replaces the default", wantExplicit: true, wantGroups: 1,
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, bash: arr}\n        - {path: b.py, python: P}\n"},
		{name: "null turns sync off", yaml: "sync: null\n", wantSyncOff: true},
		{name: "checks.disable turns names off", yaml: "checks: {disable: [names]}\n", wantNamesOff: true, wantGroups: 1},
		{name: "null turns names off", yaml: "names: null\n", wantNamesOff: true, wantGroups: 1},
		{name: "one copy", wantErr: "needs at least two copies",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, bash: arr}\n"},
		{name: "two extractors", wantErr: "exactly one of bash, python, jinja_default, between, yaml, json and toml",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, bash: arr, python: P}\n        - {path: b.py, python: P}\n"},
		{name: "bad name", wantErr: "is not a variable name",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, bash: 'a b'}\n        - {path: b.py, python: P}\n"},
		{name: "bad marker", wantErr: "between.end is not a valid regular expression",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, between: {start: '^#', end: '('}}\n        - {path: b.py, python: P}\n"},
		{name: "unknown key", wantErr: "field extractor not found",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, extractor: x}\n        - {path: b.py, python: P}\n"},
		{name: "the whole repository", wantErr: "is not a clean relative file path",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: ., bash: arr}\n        - {path: b.py, python: P}\n"},
		{name: "outside", wantErr: "is not a clean relative file path",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: ../x.sh, bash: arr}\n        - {path: b.py, python: P}\n"},
		{name: "absolute", wantErr: "is not a clean relative file path",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: /etc/x.sh, bash: arr}\n        - {path: b.py, python: P}\n"},
		{name: "not clean", wantErr: "is not a clean relative file path",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a//x.sh, bash: arr}\n        - {path: b.py, python: P}\n"},
		{name: "bad ignore", wantErr: "names.ignore", yaml: "names: {ignore: ['1x']}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Decode("f.yml", []byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Disabled("sync") != tt.wantSyncOff || c.Disabled("names") != tt.wantNamesOff {
				t.Errorf("sync off %v, names off %v", c.Disabled("sync"), c.Disabled("names"))
			}
			if c.Sync != nil && (c.Sync.Explicit != tt.wantExplicit || len(c.Sync.Groups) != tt.wantGroups) {
				t.Errorf("sync = %+v", c.Sync)
			}
		})
	}
}
