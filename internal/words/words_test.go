package words

import "testing"

func TestWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ got, want string }{
		{Plural(1, "line", "lines"), "1 line"},
		{Plural(0, "line", "lines"), "0 lines"},
		{Plural(65536, "line", "lines"), "65,536 lines"},
		{Count(1, "set"), "1 set"},
		{Count(2, "set"), "2 sets"},
		{Count(1317, "file"), "1,317 files"},
		{Short("5398c0610bac1234567890abcdef1234567890ab"), "5398c0610bac"},
		{Short("abc"), "abc"},
		{Code("a`b"), "``a`b``"},
		{Code("x\ny"), "`x y`"},
		{Code(""), ""},
		{EngineNote("8 renders", true, "3.1.6", ""), "Python Jinja2 3.1.6 rendered 8 renders, as production does."},
		{EngineNote("it", false, "", "no python3"), "gonja rendered it: no python3. The bytes may differ from production's, which Python Jinja2 renders."},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
