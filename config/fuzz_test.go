package config

import (
	"errors"
	"testing"
)

// FuzzDecode: any input either decodes or gives a *config.Error naming the
// file; it never panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"", "version: 1\n", "groups:\n  - {name: a, root: r, templates: [{path: x}]}\n",
		"restore:\n  template: harbor:tests/test.sh\n  section: {start: a, end: b}\n",
		"checks: {timeouts: {render: 1s}}\n", "pytest:\n  suites:\n    - {name: s, files: [t.py], triggers: ['**']}\n",
		"groups: [{name: a, root: r, templates: [{path: x, matrix: {k: [1, null]}}]}]\n",
		"version: &a 1\nx: *a\n", "{", "- [",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Decode("f.yml", data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "f.yml" {
				t.Fatalf("error %T %v is not a *config.Error naming the file", err, err)
			}
			return
		}
		if cfg == nil {
			t.Fatal("nil config without error")
		}
		for _, g := range cfg.Groups {
			for _, tm := range g.Templates {
				_ = g.VarSets(tm)
			}
		}
	})
}
