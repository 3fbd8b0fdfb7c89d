package jinja

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name, a, b string
		want       []string // lines the detail must hold
	}{
		{"trailing spaces", "a\nb\nc  \nd\ne\nf\n", "a\nb\nc\nd\ne\nf\n", []string{
			"differ first at byte 5 (line 3, column 2)",
			"gonja:\n  1 | \"a\\n\"\n  2 | \"b\\n\"\n> 3 | \"c  \\n\"\n  4 | \"d\\n\"\n  5 | \"e\\n\"\nJinja2:",
			"> 3 | \"c\\n\"",
		}},
		{"missing final newline", "a\nb", "a\nb\n", []string{
			"byte 3 (line 2, column 2)", "> 2 | \"b\"", "> 2 | \"b\\n\"",
		}},
		{"one output is longer", "a\n", "a\nmore\n", []string{
			"byte 2 (line 2, column 1)", "> 2 | (end of output)", "> 2 | \"more\\n\"",
		}},
		{"tab against spaces", "\tx\n", "  x\n", []string{`> 1 | "\tx\n"`, `> 1 | "  x\n"`}},
		{"long line is cut around the difference", long + "A" + long + "\n", long + "B" + long + "\n", []string{
			"column 301", `…"xxx`, `A` + strings.Repeat("x", 79) + `"…`,
		}},
		{"multibyte", "é1", "é2", []string{"byte 2 (line 1, column 3)", `"é1"`, `"é2"`}},
		{"empty output", "", "x", []string{"byte 0 (line 1, column 1)", "gonja: 0 bytes, 0 lines. Jinja2: 1 bytes, 1 lines."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			same, detail := Compare(tc.a, tc.b)
			if same {
				t.Fatal("same")
			}
			for _, w := range tc.want {
				if !strings.Contains(detail, w) {
					t.Errorf("detail lacks %q:\n%s", w, detail)
				}
			}
		})
	}
	if same, detail := Compare("x\n", "x\n"); !same || detail != "" {
		t.Errorf("equal outputs: %v %q", same, detail)
	}
}
