package taint

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/safefile"
	"github.com/formula-code/template-verify/internal/shparse"
	"mvdan.cc/sh/v3/syntax"
)

// MaxProfileFiles is the most profile files named in a head that a tamper
// run writes.
const MaxProfileFiles = 64

// profileFiles lists the files under the profile folder that the head
// names by a literal word (quoted or not, an assignment's value, a
// redirection's target), relative to the folder; no glob, no "..".
func profileFiles(head, profile string) []string {
	f, err := shparse.Parse(head)
	if err != nil {
		return nil
	}
	prefix := strings.TrimSuffix(profile, "/") + "/"
	w := &walker{}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.Word)
		if !ok || len(out) == MaxProfileFiles {
			return true
		}
		rel, ok := strings.CutPrefix(w.literal(x), prefix)
		if !ok || strings.ContainsAny(rel, "?*[]\\{}$`\x00") || strings.HasSuffix(rel, "/") {
			return true
		}
		if clean, err := safefile.Inside(rel); err == nil && clean != "00-tamper.sh" && !slices.Contains(out, clean) {
			out = append(out, clean)
		}
		return true
	})
	return out
}

func show(v string) string {
	if v == "" {
		return "(not printed)"
	}
	return v
}

// restReads lists the variables the rest of the script reads before it
// assigns them on every path (a value the head left that the rest
// overwrites first cannot change what it does); when the rest does not
// parse alone, every name of the script.
func restReads(rest string, all []string) []string {
	out, err := uncoveredReads(rest)
	if err != nil {
		return slices.Clone(all)
	}
	return out
}

// mapPaths points the profile folder and the restore paths of the head at
// the run's folder.
func mapPaths(text string, in *checks.Input, st settings, dir string) string {
	type pair struct{ from, to string }
	pairs := []pair{{strings.TrimSuffix(st.profile, "/"), filepath.Join(dir, "profile.d")}}
	if r := in.Config.Restore; r != nil {
		pairs = append(pairs,
			pair{strings.TrimSuffix(r.Paths.Repo, "/"), filepath.Join(dir, "repo")},
			pair{strings.TrimSuffix(r.Paths.Logs, "/"), filepath.Join(dir, "logs")},
			pair{strings.TrimSuffix(r.Paths.BaselineSHA, "/"), filepath.Join(dir, "baseline_sha")})
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.from) - len(a.from) })
	var args []string
	for _, p := range pairs {
		if p.from != "" {
			args = append(args, p.from, p.to)
		}
	}
	return strings.NewReplacer(args...).Replace(text)
}

// probeScript prints the value of every name after mark.
func probeScript(mark string, names []string) string {
	return fmt.Sprintf(`
# template-verify taint probe
set +e +u +o pipefail
printf '\n%%s\n' '%s'
for __tv_n in %s; do
  if [ -n "${!__tv_n+x}" ]; then printf '%%s=%%q\n' "$__tv_n" "${!__tv_n}"; else printf '%%s unset\n' "$__tv_n"; fi
done
exit 0
`, mark, strings.Join(names, " "))
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
