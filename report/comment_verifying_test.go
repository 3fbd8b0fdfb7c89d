package report

import (
	"strings"
	"testing"
)

// TestVerifying: the verifying line goes over the previous result, under
// the marker, and a second push replaces the line instead of stacking it;
// the previous result stays whole.
func TestVerifying(t *testing.T) {
	t.Parallel()
	prev, err := failingRender().Markdown()
	if err != nil {
		t.Fatal(err)
	}
	const newHead = "5398c0610bac0123456789abcdef0123456789ab"
	got := Verifying(prev, newHead)
	lines := strings.SplitN(got, "\n", 5)
	if lines[0] != Marker || !strings.Contains(lines[2], "Verifying `5398c0610bac`…") {
		t.Fatalf("first lines:\n%s", strings.Join(lines[:4], "\n"))
	}
	if !IsVerifying(got) || IsVerifying(prev) {
		t.Errorf("IsVerifying: %v for the verifying body, %v for the result", IsVerifying(got), IsVerifying(prev))
	}
	if !strings.HasSuffix(got, strings.TrimPrefix(prev, Marker+"\n")) {
		t.Errorf("the previous result is not whole under the line:\n%s", got)
	}
	if strings.Count(got, Marker) != 1 {
		t.Errorf("%d markers, want 1", strings.Count(got, Marker))
	}
	again := Verifying(got, "6666666666666666666666666666666666666666")
	if strings.Count(again, "Verifying") != 1 || !strings.Contains(again, "`666666666666`") {
		t.Errorf("a second push stacks the line:\n%s", again[:400])
	}
	if back := WithoutVerifying(again); back != prev {
		t.Errorf("WithoutVerifying does not give the result back:\n%s", back[:300])
	}
	if only := Verifying("someone else's comment", newHead); !IsComment(only) || strings.Contains(only, "someone") {
		t.Errorf("a body that is not ours is kept: %q", only)
	}
	// A verifying marker further down (text of the PR in a code block) is
	// no verifying line.
	fake := prev + "\n```text\n" + verifyingMarker + "\nx\n" + verifyingMarker + "\n```\n"
	if WithoutVerifying(fake) != fake || IsVerifying(fake) {
		t.Error("a marker further down counts as the verifying line")
	}
}
