package restore

import (
	"errors"
	"testing"
)

func TestCutSection(t *testing.T) {
	script := "#!/bin/bash\n# ── One ──\necho 1\n# ── Restore protected paths ──\ncd /workspace/repo\necho 2\n\n# ── Timing ──\necho 3\n"
	cases := []struct {
		name, script, start, end string
		text                     string
		line                     int
		noStart                  bool
	}{
		{name: "middle section", script: script, start: "^# ── Restore", end: "^# ── ",
			text: "# ── Restore protected paths ──\ncd /workspace/repo\necho 2\n\n", line: 4},
		{name: "last section runs to the end", script: script, start: "^# ── Timing", end: "^# ── ",
			text: "# ── Timing ──\necho 3\n", line: 8},
		{name: "no newline at the end", script: "a\n# ── Restore\nb", start: "^# ── Restore", end: "^# ── ",
			text: "# ── Restore\nb\n", line: 2},
		{name: "first match wins", script: "# ── Restore A\nx\n# ── Restore B\ny\n", start: "^# ── Restore", end: "^# ── ",
			text: "# ── Restore A\nx\n", line: 1},
		{name: "end pattern other than start", script: script, start: "^# ── One", end: "^# ── Timing",
			text: "# ── One ──\necho 1\n# ── Restore protected paths ──\ncd /workspace/repo\necho 2\n\n", line: 2},
		{name: "start not found", script: script, start: "^# ── Put back", end: "^# ── ", noStart: true},
		{name: "pattern must match at line start", script: "echo '# ── Restore'\n", start: "^# ── Restore", end: "^# ── ", noStart: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sec, err := CutSection(c.script, c.start, c.end)
			var ns *errNoStart
			if c.noStart {
				if !errors.As(err, &ns) {
					t.Fatalf("err %v, want no start", err)
				}
				if err.Error() != "the script has no line that matches "+c.start {
					t.Errorf("message %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sec.Text != c.text || sec.Line != c.line {
				t.Errorf("got line %d %q\nwant line %d %q", sec.Line, sec.Text, c.line, c.text)
			}
		})
	}
	if _, err := CutSection(script, "(", "x"); err == nil {
		t.Error("a bad start pattern gives no error")
	}
	if _, err := CutSection(script, "x", "("); err == nil {
		t.Error("a bad end pattern gives no error")
	}
}

func TestLineMatching(t *testing.T) {
	src := "#!/bin/bash\n{% if x %}\n# ── Restore protected paths ──\n{% endif %}\n"
	if got := lineMatching(src, "^# ── Restore"); got != 3 {
		t.Errorf("line %d, want 3", got)
	}
	if got := lineMatching(src, "^nothing"); got != 0 {
		t.Errorf("line %d, want 0", got)
	}
}
