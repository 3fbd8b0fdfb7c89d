package restore

import (
	"fmt"
	"slices"
	"testing"
)

func TestShrink(t *testing.T) {
	list := func(n int) []Edit {
		var out []Edit
		for i := range n {
			out = append(out, write(fmt.Sprintf("f%d", i), ""))
		}
		return out
	}
	has := func(edits []Edit, names ...string) bool {
		for _, n := range names {
			if !slices.ContainsFunc(edits, func(e Edit) bool { return e.Path == n }) {
				return false
			}
		}
		return true
	}
	cases := []struct {
		name  string
		n     int
		fails func([]Edit) bool
		want  []string
	}{
		{"one culprit", 8, func(e []Edit) bool { return has(e, "f5") }, []string{"f5"}},
		{"two culprits far apart", 9, func(e []Edit) bool { return has(e, "f0", "f8") }, []string{"f0", "f8"}},
		{"three culprits", 6, func(e []Edit) bool { return has(e, "f1", "f2", "f4") }, []string{"f1", "f2", "f4"}},
		{"order is kept", 5, func(e []Edit) bool { return has(e, "f3", "f1") }, []string{"f1", "f3"}},
		{"fails without any edit", 4, func([]Edit) bool { return true }, nil},
		{"single edit", 1, func(e []Edit) bool { return len(e) == 1 }, []string{"f0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Shrink(list(c.n), c.fails, 100)
			var names []string
			for _, e := range got {
				names = append(names, e.Path)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("got %q, want %q", names, c.want)
			}
			if !c.fails(got) {
				t.Error("the shrunk list does not fail")
			}
		})
	}
}

func TestShrinkStopsAtTheLimit(t *testing.T) {
	runs := 0
	edits := make([]Edit, 16)
	for i := range edits {
		edits[i] = write(fmt.Sprintf("f%d", i), "")
	}
	got := Shrink(edits, func(e []Edit) bool { runs++; return len(e) >= 3 }, 5)
	if runs > 5 {
		t.Errorf("%d runs, limit 5", runs)
	}
	if len(got) < 3 {
		t.Errorf("returned a list that does not fail: %d edits", len(got))
	}
}
