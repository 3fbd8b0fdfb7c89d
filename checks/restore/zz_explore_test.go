package restore

import (
	"context"
	"testing"
)

func TestZZExplore(t *testing.T) {
	for _, name := range []string{"from-head.sh", "spaces.sh", "keeps-added.sh", "no-baseline.sh", "glob.sh"} {
		in := scriptInput(t, name)
		res := New().Run(context.Background(), in)
		t.Logf("== %s: %s %s", name, res.Conclusion, res.Title)
		for _, f := range res.Findings {
			t.Logf("   %s", f.Message)
		}
	}
}
