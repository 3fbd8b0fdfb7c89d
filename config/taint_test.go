package config

import (
	"slices"
	"strings"
	"testing"
)

// TestTaintDescriptionBlocks decodes the taint and description blocks:
// defaults when absent, null turns a check off, a key set keeps the other
// defaults, and bad values are errors with the line.
func TestTaintDescriptionBlocks(t *testing.T) {
	tests := []struct {
		name, yaml string
		err        string // part of the error; "" for none
		check      func(t *testing.T, c *Config)
	}{
		{"absent", "version: 1\n", "", func(t *testing.T, c *Config) {
			if c.Disabled("taint") || c.Disabled("description") {
				t.Error("an absent block turns the check off")
			}
			if !slices.Equal(c.Taint.ProtectedNames(), DefaultProtect) || c.Taint.Profile() != DefaultProfileDir || !c.Taint.TamperRun() {
				t.Errorf("taint defaults: %+v", c.Taint)
			}
		}},
		{"null", "taint: null\ndescription: null\n", "", func(t *testing.T, c *Config) {
			if !c.Disabled("taint") || !c.Disabled("description") {
				t.Error("null does not turn the checks off")
			}
		}},
		{"one key keeps the rest", "taint:\n  protect: [MY_FLAG]\n", "", func(t *testing.T, c *Config) {
			if !slices.Equal(c.Taint.ProtectedNames(), []string{"MY_FLAG"}) || !slices.Equal(c.Taint.WritableGlobs(), DefaultAgentWritable) {
				t.Errorf("taint: %+v", c.Taint)
			}
		}},
		{"description fail", "description:\n  level: fail\n", "", func(t *testing.T, c *Config) {
			if !DescriptionFails(nil, c) || DescriptionFails(Default(), Default()) {
				t.Error("DescriptionFails")
			}
		}},
		{"bad protect glob", "taint:\n  protect: ['FC_[']\n", "2: taint.protect", nil},
		{"bad step", "taint:\n  steps: ['(']\n", "2: taint.steps", nil},
		{"bad level", "description:\n  level: loud\n", "2: description.level", nil},
		{"unknown rule", "description:\n  ignore: [spelling]\n", "2: description.ignore", nil},
		{"unknown key", "taint:\n  protected: [X]\n", "protected", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Decode("t.yml", []byte(tc.yaml))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}
