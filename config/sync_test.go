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
		{name: "unknown key", wantErr: `unknown key "extractor"`,
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
		{name: "a yaml copy", wantExplicit: true, wantGroups: 1,
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, bash: arr}\n        - {path: ci/p.yml, yaml: restore.patterns}\n"},
		{name: "a bad key path", wantErr: "f.yml:6: copy ci/p.json: \"a..b\" is not a key path",
			yaml: "sync:\n  groups:\n    - name: g\n      copies:\n        - {path: a.sh, bash: arr}\n        - {path: ci/p.json, json: a..b}\n"},
		{name: "discover and ignore only", wantExplicit: true,
			yaml: "sync:\n  discover: true\n  ignore:\n    - {path: 'tpl/**', list: arr, with: ci/*.yml}\n"},
		{name: "an ignore entry without a path", wantErr: "f.yml:3: a sync.ignore entry needs a path",
			yaml: "sync:\n  ignore:\n    - list: arr\n"},
		{name: "a bad ignore glob", wantErr: "f.yml:3: sync.ignore with \"[\" is not a valid glob",
			yaml: "sync:\n  ignore:\n    - {path: a.sh, with: '['}\n"},
		{name: "discover is a boolean", wantErr: "f.yml:2",
			yaml: "sync:\n  discover: sometimes\n"},
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

func TestSyncDiscovers(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		sync *Sync
		want bool
	}{
		{"no block", nil, false},
		{"the default block", DefaultSync(), true},
		{"a file's block with groups", &Sync{Explicit: true, Groups: DefaultSync().Groups}, false},
		{"a file's block with groups and discover: true", &Sync{Explicit: true, Groups: DefaultSync().Groups, Discover: &yes}, true},
		{"a file's block with only ignore", &Sync{Explicit: true, Ignore: []SyncIgnore{{Path: "a"}}}, true},
		{"discover: false", &Sync{Explicit: true, Discover: &no}, false},
	}
	for _, tt := range tests {
		if got := tt.sync.Discovers(); got != tt.want {
			t.Errorf("%s: Discovers() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
