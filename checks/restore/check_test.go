package restore

import (
	"context"
	"testing"

	"github.com/formula-code/template-verify/checks"
)

func TestGoodScriptPassesEverything(t *testing.T) {
	in := scriptInput(t, "good.sh")
	res := New().Run(context.Background(), in)
	if res.Conclusion != checks.Success {
		for _, f := range res.Findings {
			t.Errorf("%s\n%s", f.Message, f.Details)
		}
		t.Fatalf("conclusion %s: %s", res.Conclusion, res.Title)
	}
	t.Logf("%s; figures %+v; notes %q", res.Title, res.Figures, res.Notes)
	for _, row := range res.Tables[0].Rows {
		t.Logf("%v", row)
	}
}
