package pytest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/pytestlog"
	"github.com/formula-code/template-verify/internal/sandbox"
)

const (
	maxContextLines = 12
	maxContextLine  = 240
	maxTitle        = 255
	maxDetails      = 4000
)

// finding makes the annotation of one test at its file and line from the
// JUnit file. The message is the sentence, then the marker lines that
// pytestlog finds for this test: context only, never the outcome.
func finding(p *pyRun, id string, level checks.Level, title, sentence string) checks.Finding {
	c := p.Cases[id]
	path := c.FilePath()
	if path == "" {
		path = fileOf(id)
	}
	line := c.Line
	if line == 0 && c.CollectionError() {
		line = tracebackLine(c.Text, path)
	}
	msg := sentence
	if ctx := contextLines(id, c.Message+"\n"+c.Text, p.Log()); len(ctx) > 0 {
		msg += "\n" + strings.Join(ctx, "\n")
	}
	return checks.Finding{
		Path:    path,
		Line:    line,
		Level:   level,
		Title:   cut(title+": "+id, maxTitle),
		Message: msg,
	}
}

// contextLines picks the pytestlog markers of one test: the FAILED lines of
// the run's log that name it, then the FAILED, E and AssertionError lines
// of its own JUnit text. Duplicates are dropped.
func contextLines(id, caseText, log string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(l string) {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] || len(out) >= maxContextLines {
			return
		}
		seen[l] = true
		out = append(out, cut(l, maxContextLine))
	}
	for _, l := range pytestlog.Parse(log).Failed {
		if rest, ok := strings.CutPrefix(l, "FAILED "+id); ok && (rest == "" || rest[0] == ' ') {
			add(l)
		}
	}
	r := pytestlog.Parse(caseText)
	for _, bucket := range [][]string{r.Failed, r.Errors, r.Assertions} {
		for _, l := range bucket {
			add(l)
		}
	}
	return out
}

// tracebackLine finds "<file>:<line>:" in a collection error's traceback.
func tracebackLine(text, file string) int {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(file) + `:(\d+):`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// sandboxTail is the end of a run's output for a finding's details.
func sandboxTail(p *pyRun) string {
	return sandbox.Tail(append(append([]byte{}, p.Out.Stdout...), p.Out.Stderr...), maxDetails)
}

// cut shortens s to at most n bytes on a rune boundary, ending with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !utf8RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// reproduce is the command that repeats a run from the repository top.
func reproduce(env []string, py string, targets []string, collectionErrors bool) string {
	var parts []string
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		parts = append(parts, k+"="+shellQuote(v))
	}
	parts = append(parts, shellQuote(py), "-m", "pytest", "-p", "no:cacheprovider")
	if collectionErrors {
		parts = append(parts, "--continue-on-collection-errors")
	}
	for _, t := range targets {
		parts = append(parts, shellQuote(t))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for bash when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
