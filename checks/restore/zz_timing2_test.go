package restore

import (
	"context"
	"testing"
	"time"
)

func TestZZTiming2(t *testing.T) {
	ctx := context.Background()
	in := scriptInput(t, "good.sh")
	step, st := prepareStep(ctx, in, in.Config.Restore)
	if st != nil {
		t.Fatal(st.title)
	}
	root := t.TempDir()
	baseDir, sha, base, _ := prepare(ctx, root)
	policy, _ := NewPolicy(in.Config.Restore.Patterns)
	for _, sb := range []bool{false, true} {
		r := &runner{step: step, policy: policy, base: base, baseSHA: sha, src: copySource{baseDir}, root: root, opts: Options{NoSandbox: !sb, Parallel: 1}.settle()}
		for _, sc := range Catalogue()[:6] {
			s := time.Now()
			o := r.run(ctx, sc)
			t.Logf("sandbox=%v %s %v %v", sb, sc.Name, o.Verdict, time.Since(s))
		}
		s := time.Now()
		r.runAll(ctx, Catalogue())
		t.Logf("catalogue %v", time.Since(s))
	}
}
