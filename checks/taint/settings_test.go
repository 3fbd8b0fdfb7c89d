package taint

import (
	"maps"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// TestSettings: the protected names and writable paths of the base and
// the head both count, so the head cannot unprotect a name or trust a path
// the base does not.
func TestSettings(t *testing.T) {
	t.Parallel()
	head := config.Default()
	head.Taint = &config.Taint{Protect: []string{"MY_FLAG"}, AgentWritable: []string{"/opt/agent/*"}}
	tests := []struct {
		name      string
		base      *config.Config
		protected map[string]bool
	}{
		{"base defaults", config.Default(), map[string]bool{"MY_FLAG": true, "FC_SKIP_PYTEST": true, "DATASMITH_VERIFY_X": true, "HOME": false}},
		{"no base config", nil, map[string]bool{"MY_FLAG": true, "FC_SKIP_PYTEST": false}},
		{"base turns taint off", func() *config.Config { c := config.Default(); c.Taint = nil; return c }(), map[string]bool{"MY_FLAG": true, "FC_SKIP_PYTEST": false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := settingsOf(tc.base, head)
			for n, want := range tc.protected {
				if got := st.protected(n); got != want {
					t.Errorf("protected(%s) = %v, want %v", n, got, want)
				}
			}
		})
	}
	// The base's default (every path) stands: a head that narrows the
	// writable files is not trusted until it is the base.
	narrowBase := config.Default()
	narrowBase.Taint = &config.Taint{AgentWritable: []string{"/etc/profile.d/*"}}
	for _, tc := range []struct {
		base *config.Config
		want map[string]bool
	}{
		{config.Default(), map[string]bool{"/etc/profile.d/x.sh": true, "/opt/agent/env.sh": true, "/usr/lib/x.sh": true, "/root/.bashrc": true, "lib.sh": true}},
		{narrowBase, map[string]bool{"/etc/profile.d/x.sh": true, "/opt/agent/env.sh": true, "/usr/lib/x.sh": false, "/root/.bashrc": false, "lib.sh": true}},
	} {
		st := settingsOf(tc.base, head)
		w := &walker{writable: st.writable}
		for p, want := range tc.want {
			if got := w.agentWritable(p); got != want {
				t.Errorf("base %v: agentWritable(%s) = %v, want %v", tc.base.Taint.AgentWritable, p, got, want)
			}
		}
	}
}

// TestProtectedUses: why each uncovered read is protected, and that a
// derived name fails at the names it carries.
func TestProtectedUses(t *testing.T) {
	t.Parallel()
	st := settingsOf(config.Default(), config.Default())
	script := src + `echo "${MODE:-fast}" "$PLAIN"
B="$SHA"
git diff "$B"
T="$RAW"
FC_PYTEST_TIMEOUT="$T"
timeout "$FC_PYTEST_TIMEOUT" pytest
echo "$FC_SKIP_PYTEST"
`
	an, err := Analyze(script, st.writable)
	if err != nil {
		t.Fatal(err)
	}
	got := st.protectedUses(an)
	want := map[string]string{"MODE": ReasonDefault, "SHA": ReasonGit, "RAW": "feeds FC_PYTEST_TIMEOUT", "FC_SKIP_PYTEST": "protect"}
	if !maps.Equal(got, want) {
		t.Errorf("protectedUses = %v, want %v", got, want)
	}
}
