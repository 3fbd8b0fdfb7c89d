package archive

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/internal/words"
)

// verb is "1 member gets" or "5 members get".
func verb(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = code(s)
	}
	return out
}

// code is the shared inline code span.
var code = words.Code

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// plural is the shared count with its noun ("2 sets").
var plural = words.Count

// thousands writes n with comma separators, as the seeds do (1,317).
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var kindTitle = map[string]string{
	KindAdded: "added", KindRemoved: "removed", KindOrder: "order changed", KindMode: "mode changed",
	KindMtime: "mtime changed", KindOwner: "owner changed", KindType: "type changed",
}

func kindMessage(k string, kd *Kind, d *Diff) string {
	switch k {
	case KindAdded:
		return fmt.Sprintf("%s new at head: %s.", verb(kd.Count, "member is", "members are"), listed(d.Added, kd.Count))
	case KindRemoved:
		return fmt.Sprintf("%s gone at head: %s.", verb(kd.Count, "member is", "members are"), listed(d.Removed, kd.Count))
	case KindOrder:
		return fmt.Sprintf("%s.", upper(kd.Detail))
	}
	return fmt.Sprintf("%s %s. Example: %s, %s.", verb(kd.Count, "member changes its", "members change their"), k, kd.Example, kd.Detail)
}

func listed(names []string, n int) string {
	s := strings.Join(names, ", ")
	if n > len(names) {
		s += fmt.Sprintf(" and %d more", n-len(names))
	}
	return s
}

// summaryOf says what changed in one archive: its members at base and
// head, what stayed the same (order, mode, mtime, owner), the distinct
// diffs and the bash -n result of the changed shell members.
func summaryOf(a changedArchive, d *Diff, added bool, shellRan, shellBad int) string {
	var s []string
	if added {
		s = append(s, fmt.Sprintf("%s is new: %s members.", code(a.Path), thousands(d.HeadMembers)))
	} else {
		same := []string{}
		if d.Kinds[KindOrder] == nil {
			same = append(same, "in the same order")
		}
		var meta []string
		for _, k := range []string{KindMode, KindMtime, KindOwner} {
			if d.Kinds[k] == nil {
				meta = append(meta, k)
			}
		}
		if len(meta) > 0 {
			same = append(same, "with the same "+strings.Join(meta, "/"))
		}
		if d.BaseMembers == d.HeadMembers && d.Kinds[KindAdded] == nil && d.Kinds[KindRemoved] == nil {
			s = append(s, fmt.Sprintf("%s: the same %s members at base and head %s.", code(a.Path), thousands(d.HeadMembers), strings.Join(same, " ")))
		} else {
			s = append(s, fmt.Sprintf("%s: %s members at base, %s at head.", code(a.Path), thousands(d.BaseMembers), thousands(d.HeadMembers)))
		}
		s[0] = strings.Replace(s[0], " .", ".", 1)
	}
	s = append(s, fmt.Sprintf("%s changed, %s after masking.", plural(d.Changed, "member"), plural(d.Distinct(), "distinct diff")))
	if d.Changed > 0 && len(d.ChangedByName) == 1 {
		for n := range d.ChangedByName {
			s[len(s)-1] = fmt.Sprintf("%s changed (all %s), %s after masking.", plural(d.Changed, "member"), code(n), plural(d.Distinct(), "distinct diff"))
		}
	}
	if !added && onlyContent(d) {
		s = append(s, "No other member of the archive changed.")
	}
	if shellRan > 0 {
		if shellBad == 0 {
			s = append(s, fmt.Sprintf("Every changed shell member passes `bash -n` (%s).", thousands(shellRan)))
		} else {
			s = append(s, fmt.Sprintf("%d of %s changed shell members fail `bash -n`.", shellBad, thousands(shellRan)))
		}
	}
	return strings.Join(s, " ")
}

// onlyContent reports whether nothing but contents changed.
func onlyContent(d *Diff) bool { return len(d.Kinds) == 0 }
