package report

import (
	"regexp"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/markdown"
)

// maxAlsoSeen is how many findings a cause names under "also seen in"
// before "and N more".
const maxAlsoSeen = 5

// cause is one root of the failures: the first failing finding with that
// root, and the later findings that share it.
type cause struct {
	check   string
	finding checks.Finding
	at      findingAt
	keys    map[string]bool
	also    []seen
}

// seen is a finding that folds under a cause.
type seen struct {
	check, label string
	finding      checks.Finding
	at           findingAt
}

// findingAt is where a finding is in a report: the index of its result,
// and its index in the result's findings.
type findingAt struct{ result, finding int }

// Roots a finding can share with an earlier one. A location or an
// undefined name is one root in any check. The text of a bash syntax
// error joins only a finding of another check: a pytest test that fails
// on the same rendered script.
var (
	undefinedName = regexp.MustCompile(`'([A-Za-z_][A-Za-z0-9_]*)' is undefined`)
	bashError     = regexp.MustCompile(`syntax error(?::| near) [^.\n'` + "`" + `]*[a-z]`)
	// parseLine is "173:1: " in a parser's message about the finding's file.
	parseLine = regexp.MustCompile(`\b([0-9]+):[0-9]+: `)
	// nodeID is a pytest node id: tests/test_x.py::test_y[params].
	nodeID = regexp.MustCompile(`[^\s:]+\.py::[^\s]+`)
)

// rootKeys are the roots of a finding: "loc:" its file and line (and the
// line a parser names in its message), "undefined:" each undefined name,
// and "bash:" each bash syntax error it quotes.
func rootKeys(f checks.Finding) (own, shared map[string]bool) {
	own, shared = map[string]bool{}, map[string]bool{}
	text := f.Title + "\n" + f.Message
	if f.Path != "" && f.Line > 0 {
		own["loc:"+f.Path+":"+itoa(f.Line)] = true
	}
	if f.Path != "" {
		for _, m := range parseLine.FindAllStringSubmatch(f.Message, -1) {
			own["loc:"+f.Path+":"+m[1]] = true
		}
	}
	for _, m := range undefinedName.FindAllStringSubmatch(text, -1) {
		own["undefined:"+m[1]] = true
	}
	for _, m := range bashError.FindAllString(text, -1) {
		shared["bash:"+m] = true
	}
	return own, shared
}

// causesOf groups the failing findings of r by root, in check order: a
// finding that shares a root with an earlier cause folds under it.
func causesOf(r *Report) []*cause {
	var out []*cause
	for ri, res := range r.Results {
		for fi, f := range res.Findings {
			if f.Level != checks.LevelFailure {
				continue
			}
			own, shared := rootKeys(f)
			var into *cause
			for _, c := range out {
				if c.shares(res.Check, own, shared) {
					into = c
					break
				}
			}
			if into == nil {
				keys := map[string]bool{}
				for k := range own {
					keys[k] = true
				}
				for k := range shared {
					keys[k] = true
				}
				out = append(out, &cause{check: res.Check, finding: f, at: findingAt{ri, fi}, keys: keys})
				continue
			}
			loc := markdown.Location(into.finding.Path, into.finding.Line, into.finding.EndLine)
			into.also = append(into.also, seen{check: res.Check, label: seenLabel(f, loc), finding: f, at: findingAt{ri, fi}})
		}
	}
	return out
}

// causeGroups are the causes of r by where their first finding is, and
// the findings that fold under a cause, for the outputs that list every
// finding (text, SARIF): they list a cause's findings under it.
func causeGroups(r *Report) (heads map[findingAt]*cause, folded map[findingAt]bool) {
	heads, folded = map[findingAt]*cause{}, map[findingAt]bool{}
	for _, c := range causesOf(r) {
		heads[c.at] = c
		for _, s := range c.also {
			folded[s.at] = true
		}
	}
	return heads, folded
}

// shares reports whether a finding of check with these roots has the
// root of c.
func (c *cause) shares(check string, own, shared map[string]bool) bool {
	for k := range own {
		if c.keys[k] {
			return true
		}
	}
	if check == c.check {
		return false
	}
	for k := range shared {
		if c.keys[k] {
			return true
		}
	}
	return false
}

// maxSeenLabel is the longest title a folded finding shows, in bytes.
const maxSeenLabel = 100

// seenLabel names a folded finding in a few words: a pytest test by its
// node id without the folder of its file, else its file and line, else
// (when that is the line of the cause) its title.
func seenLabel(f checks.Finding, causeLoc string) string {
	if id := nodeID.FindString(markdown.Unescape(f.Title)); id != "" {
		file, rest, _ := strings.Cut(id, "::")
		if i := strings.LastIndexByte(file, '/'); i >= 0 {
			file = file[i+1:]
		}
		return strings.TrimRight(file+"::"+rest, ".,;:")
	}
	if loc := markdown.Location(f.Path, f.Line, f.EndLine); loc != "" && loc != causeLoc {
		return loc
	}
	if t := oneLine(f.Title); t != "" {
		return clip(t, maxSeenLabel)
	}
	return clip(oneLine(f.Message), maxSeenLabel)
}

// leadFailures lists one bullet per cause, in check order, then each
// check that failed with no failing finding. Findings that share a root
// with a cause fold under its bullet, "also seen in: …".
func leadFailures(r *Report) (items []string, more int) {
	add := func(s string) {
		if len(items) < maxLeadFailures {
			items = append(items, s)
		} else {
			more++
		}
	}
	causes := causesOf(r)
	for _, res := range r.Results {
		n := 0
		for _, c := range causes {
			if c.check != res.Check {
				continue
			}
			n++
			add(r.causeText(c))
		}
		if n == 0 && res.Conclusion.Failed() && res.Failures() == 0 {
			s := markFail + " " + markdown.Bold(prose(res.Check)) + ": " + Word(res.Conclusion)
			if t := prose(clip(markdown.Plain(res.Title), maxLeadMessage)); t != "" {
				s += ". " + sentence(capital(t))
			} else {
				s += "."
			}
			add(s)
		}
	}
	return items, more
}

// causeText is the bullet of one cause: the check, the linked location,
// the title and message, and a line under it with the findings that share
// its root.
func (r *Report) causeText(c *cause) string {
	f := c.finding
	s := markFail + " " + markdown.Bold(prose(c.check)) + ":"
	if loc := markdown.Location(f.Path, f.Line, f.EndLine); loc != "" {
		s += " " + r.lineLink(f, clip(loc, maxLeadMessage))
	}
	title, msg := prose(clip(markdown.Plain(f.Title), maxLeadMessage)), prose(clip(markdown.Plain(f.Message), maxLeadMessage))
	if title != "" && title != msg {
		s += " " + sentence(title)
	}
	if msg != "" {
		s += " " + sentence(msg)
	}
	if len(c.also) == 0 {
		return s
	}
	var groups []string
	for i := 0; i < len(c.also) && i < maxAlsoSeen; {
		check := c.also[i].check
		var labels []string
		count := map[string]int{}
		for ; i < len(c.also) && i < maxAlsoSeen && c.also[i].check == check; i++ {
			l := code(clip(c.also[i].label, maxLeadMessage))
			if count[l]++; count[l] == 1 {
				labels = append(labels, l)
			}
		}
		for j, l := range labels {
			if n := count[l]; n > 1 {
				labels[j] = l + " (" + itoa(n) + " findings)"
			}
		}
		groups = append(groups, markdown.Bold(prose(check))+" "+strings.Join(labels, ", "))
	}
	also := "also seen in: " + strings.Join(groups, "; ")
	if n := len(c.also) - maxAlsoSeen; n > 0 {
		also += " and " + plural(n, "more finding", "more findings")
	}
	return s + "\n  - " + also + "."
}
