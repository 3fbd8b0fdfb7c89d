package restore

import (
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/config"
)

// TestReleasedIsReadAtTheBase: the paths a change may stop protecting are
// the base's restore.released; a PR that adds one to its own config is
// judged without it, and a note says so.
func TestReleasedIsReadAtTheBase(t *testing.T) {
	withReleased := func(paths ...string) *config.Config {
		return &config.Config{Restore: &config.Restore{Released: paths}}
	}
	cases := []struct {
		name       string
		base, head *config.Config
		want       []string
		note       string
	}{
		{"the head adds a path", withReleased(), withReleased("tests/"), nil, "adds `tests/`"},
		{"the base has it", withReleased("tests/"), withReleased("tests/"), []string{"tests/"}, ""},
		{"no base config", nil, withReleased("tests/"), nil, "adds `tests/`"},
		{"the head drops it", withReleased("tests/"), withReleased(), []string{"tests/"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, note := releasedAtBase(&checks.Input{BaseConfig: c.base, Config: c.head})
			if !slices.Equal(got, c.want) {
				t.Errorf("released %v, want %v", got, c.want)
			}
			if (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
				t.Errorf("note %q, want one with %q", note, c.note)
			}
		})
	}
}
