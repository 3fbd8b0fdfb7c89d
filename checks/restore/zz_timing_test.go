package restore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/formula-code/template-verify/internal/fixture"
	"github.com/formula-code/template-verify/internal/sandbox"
)

func TestZZTiming(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st := time.Now()
	baseDir, sha, base, err := prepare(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("prepare %v", time.Since(st))
	_ = base
	for i := 0; i < 3; i++ {
		dir := filepath.Join(root, "s"+string(rune('a'+i)))
		os.MkdirAll(dir, 0o755)
		st = time.Now()
		fixture.Copy(ctx, baseDir, filepath.Join(dir, "repo"))
		t.Logf("copy %v", time.Since(st))
		st = time.Now()
		Apply(ctx, filepath.Join(dir, "repo"), []Edit{write("tests/x.py", "x"), add("."), commit("c")})
		t.Logf("apply %v", time.Since(st))
		st = time.Now()
		fixture.ReadWork(ctx, filepath.Join(dir, "repo"))
		t.Logf("readwork %v", time.Since(st))
		st = time.Now()
		descends(ctx, filepath.Join(dir, "repo"), sha)
		t.Logf("descends %v", time.Since(st))
		for _, sb := range []bool{false, true} {
			st = time.Now()
			o := sandbox.Run(ctx, sandbox.Spec{Args: []string{"bash", "-c", "git status >/dev/null; python3 -c 1"}, Dir: filepath.Join(dir, "repo"), Home: dir, Sandbox: sb, Env: []string{"PATH=" + defaultPath()}})
			t.Logf("sandbox=%v %v %v %s", sb, time.Since(st), o.Err, o.Stderr)
		}
	}
}
