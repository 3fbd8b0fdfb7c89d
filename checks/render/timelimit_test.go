package render

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/loadclock"
)

// A render that the check's time limit stops says so and names the limit;
// it never reads as "The templates could not be read" (issue 20). The
// per-render limit is far away, so only the check's limit can fire.
func TestCheckTimeLimitIsNamed(t *testing.T) {
	t.Parallel()
	loop := "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\n"
	in := input(t, map[string]string{"tpl/a.txt": "a\n"}, map[string]string{"tpl/a.txt": "a\n", "tpl/loop.txt": loop})
	ctx, cancel := loadclock.WithTimeout(context.Background(), 2*time.Second) // as checks.Runner does
	defer cancel()
	c := New()
	c.Python = noPython
	c.RenderTime = time.Hour
	res := c.Run(ctx, in)
	if res.Conclusion != checks.TimedOut || !strings.Contains(res.Title, "time limit of 2s") || !strings.Contains(res.Summary, "checks.timeouts.render") {
		t.Fatalf("%s %q: %s\n%s", res.Conclusion, res.Title, res.Summary, findingsText(res))
	}
}
