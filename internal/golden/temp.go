package golden

import (
	"os"
	"regexp"
)

// tempMasks are the temporary folders of a run as outputs name them: the
// tool's own under TMPDIR, and pytest's shortened strings, as in
// '/tmp/templat...end, of which more or less shows with another TMPDIR.
var tempMasks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/template-verify-[^\s'"]*`), "<tmp>"},
	{regexp.MustCompile(`'/[^'\s]*\.\.\.`), "'<tmp>..."},
	// pytest's base folder names the user (/tmp/pytest-of-USER/pytest-N),
	// root here and runner on GitHub's runner.
	{regexp.MustCompile(`/pytest-of-[^/\s]+/`), "/pytest-of-<user>/"},
}

// MaskTemp replaces the temporary folders in s by <tmp>, so that a golden
// file holds the same text whatever TMPDIR and the user are.
func MaskTemp(s string) string {
	for _, m := range tempMasks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return s
}
