package pytest

import (
	"context"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/formula-code/template-verify/checks"
)

// The runner is a producer: it writes a JSON result file that other files
// of the repository (datasmith's parser.py, a grader's jq line) read by
// key. When the runner changes, the keys it writes at base and head are
// compared on a fixture run, and a key the base wrote, the head no longer
// writes, and a file at the head reads is a failure: the consumer would
// read nothing where the reward used to come from.

// The bounds of the key comparison.
const (
	// maxKeys is the most key paths read from one result file.
	maxKeys = 10000
	// maxKeyDepth is the deepest nesting of the result file followed.
	maxKeyDepth = 32
	// maxConsumers is the most files read as consumers of the result.
	maxConsumers = 200
	// maxConsumerLine is the longest line of a consumer read for keys.
	maxConsumerLine = 64 << 10
)

// keyDrop is a key the base's runner wrote, the head's does not, and a
// file at the head reads.
type keyDrop struct {
	Key      string // the key as the consumer reads it ("total")
	BasePath string // where the base's runner wrote it ("results.summary.total")
	Consumer string // repository path of the reading file
	Line     int
	Text     string // the consumer's line, trimmed
}

// keyOutcome is what the key comparison found.
type keyOutcome struct {
	Drops []keyDrop
	// Result is the result file's name ("test_results.json").
	Result string
	// Note says what was compared, or why nothing was.
	Note string
}

// jsonKeys lists the key paths of a decoded JSON document: "a", "a.b",
// "a[].c" for a key of an object in a list.
func jsonKeys(doc any) []string {
	var out []string
	var walk func(v any, at string, depth int)
	walk = func(v any, at string, depth int) {
		if depth > maxKeyDepth || len(out) >= maxKeys {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				p := k
				if at != "" {
					p = at + "." + k
				}
				if len(out) >= maxKeys {
					return
				}
				out = append(out, p)
				walk(v[k], p, depth+1)
			}
		case []any:
			for _, e := range v {
				walk(e, at+"[]", depth+1)
			}
		}
	}
	walk(doc, "", 0)
	slices.Sort(out)
	return slices.Compact(out)
}

// leaf is the last key of a key path.
func leaf(p string) string {
	p = strings.TrimRight(p, "[]")
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		p = p[i+1:]
	}
	return strings.TrimSuffix(p, "[]")
}

// droppedLeaves are the last keys of the base's paths that no path of the
// head ends with, each with one base path that has it.
func droppedLeaves(base, head []string) map[string]string {
	have := map[string]bool{}
	for _, p := range head {
		have[leaf(p)] = true
	}
	out := map[string]string{}
	for _, p := range base {
		if l := leaf(p); !have[l] {
			if _, ok := out[l]; !ok {
				out[l] = p
			}
		}
	}
	return out
}

// keyRead matches a read of a JSON key: x["k"], x['k'], x.get("k"),
// and a jq path .k (in a line that runs jq).
var (
	pyKeyRead = regexp.MustCompile(`(?:\[\s*|\.get\(\s*)(?:"([^"\\\n]{1,100})"|'([^'\\\n]{1,100})')`)
	jqKeyRead = regexp.MustCompile(`(?:^|[\s'"|(,])((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)
	jqCall    = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.-])jq\s`)
)

// keyReads returns the keys a line reads.
func keyReads(line string) []string {
	var out []string
	for _, m := range pyKeyRead.FindAllStringSubmatch(line, -1) {
		out = append(out, m[1]+m[2])
	}
	if jqCall.MatchString(line) {
		for _, m := range jqKeyRead.FindAllStringSubmatch(line, -1) {
			out = append(out, strings.Split(strings.TrimPrefix(m[1], "."), ".")...)
		}
	}
	return out
}

// compareKeys runs the base's runner of p on the first scenario when the
// runner changed, and looks for keys the head no longer writes that a
// file at the head reads. head are the head's scenario results (with the
// keys each wrote). nil: there was nothing to compare (the same runner).
func compareKeys(ctx context.Context, in *checks.Input, py *python, p *runnerPrep, head []scenarioResult, list []scenario, dir string) *keyOutcome {
	if p.headErr || p.brc == nil || len(list) == 0 || p.same() {
		return nil
	}
	if p.baseNote != "" {
		return &keyOutcome{Note: "The keys of the runner's result were not compared: " + lowerFirst(p.baseNote)}
	}
	rc, brc, btext, rel := p.rc, p.brc, p.btext, p.rel
	var headKeys []string
	for _, r := range head {
		headKeys = append(headKeys, r.Keys...)
	}
	if len(headKeys) == 0 {
		return &keyOutcome{Note: "The keys of the runner's result were not compared: the head's runner wrote no JSON object in any scenario."}
	}
	bfile, err := writeRunner(filepath.Join(dir, "keys-base"), rel, btext)
	if err != nil {
		return &keyOutcome{Note: fmt.Sprintf("The keys of the runner's result were not compared: %v.", err)}
	}
	timeout := defaultScenarioTimeout
	if t := in.Config.Pytest.Timeout.Duration; t > 0 && t < timeout {
		timeout = t
	}
	bres, _, err := scenarioRuns.get(ctx, specFor(brc, py.Path, bfile, timeout), py, filepath.Join(dir, "keys-base-scenarios"), list[:1])
	if err != nil || len(bres) == 0 || len(bres[0].Keys) == 0 {
		return &keyOutcome{Note: fmt.Sprintf("The keys of the runner's result were not compared: the base's runner wrote no JSON object in the scenario %s.", list[0].Name)}
	}
	dropped := droppedLeaves(bres[0].Keys, headKeys)
	result := path.Base(rc.ResultFile())
	out := &keyOutcome{Result: result, Note: fmt.Sprintf("The runner changed: the keys of %s that its base and head versions write were compared (%d at the base, %d at the head), and the files at the head that name %s were read for the keys they read.",
		result, len(bres[0].Keys), len(headKeys), result)}
	if len(dropped) == 0 {
		return out
	}
	drops, err := consumerReads(ctx, in, result, p.out.Template, dropped)
	if err != nil {
		out.Note = fmt.Sprintf("The runner's head no longer writes %s, but the files that read %s could not be searched: %v.", strings.Join(slices.Sorted(maps.Keys(dropped)), ", "), result, err)
		return out
	}
	out.Drops = drops
	return out
}

// consumerReads finds the files at the head that name the result file (all
// but the producer), then, with one more git grep, their lines that hold a
// dropped key, and returns the lines that read one.
func consumerReads(ctx context.Context, in *checks.Input, result, producer string, dropped map[string]string) ([]keyDrop, error) {
	repo := in.Plan.Trees.Repo
	list, err := repo.Run(ctx, "grep", "-l", "-I", "-F", "-z", "-e", result, in.Plan.Head, "--")
	if err != nil && len(list) > 0 {
		return nil, fmt.Errorf("git grep: %w", err)
	}
	var paths []string
	for _, rec := range strings.Split(string(list), "\x00") {
		if _, p, ok := strings.Cut(rec, ":"); ok && p != producer && len(paths) < maxConsumers {
			paths = append(paths, ":(literal)"+p)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	args := []string{"grep", "-n", "-I", "-F", "-z"}
	for _, k := range slices.Sorted(maps.Keys(dropped)) {
		args = append(args, "-e", k)
	}
	args = append(args, in.Plan.Head, "--")
	out, err := repo.Run(ctx, append(args, paths...)...)
	if err != nil && len(out) > 0 {
		return nil, fmt.Errorf("git grep: %w", err)
	}
	var drops []keyDrop
	// Each match is "REV:PATH\0LINE\0TEXT\n"; a path may hold a newline.
	for rest := string(out); rest != ""; {
		name, after, ok1 := strings.Cut(rest, "\x00")
		num, after, ok2 := strings.Cut(after, "\x00")
		text, after, _ := strings.Cut(after, "\n")
		rest = after
		_, p, ok3 := strings.Cut(name, ":")
		line, err := strconv.Atoi(num)
		if !ok1 || !ok2 || !ok3 || err != nil || len(text) > maxConsumerLine {
			continue
		}
		for _, k := range keyReads(text) {
			if bp, ok := dropped[k]; ok {
				drops = append(drops, keyDrop{Key: k, BasePath: bp, Consumer: p, Line: line, Text: strings.TrimSpace(text)})
			}
		}
	}
	return drops, nil
}

// applyKeys adds the key comparison to the assembled result: a dropped
// key that a consumer reads fails the check.
func applyKeys(res checks.Result, scen *runnerOutcome) checks.Result {
	if scen == nil || scen.Keys == nil {
		return res
	}
	k := scen.Keys
	if k.Note != "" {
		res.Notes = append(res.Notes, k.Note)
	}
	if len(k.Drops) == 0 {
		return res
	}
	for _, d := range k.Drops {
		res.Findings = append(res.Findings, checks.Finding{
			Path: d.Consumer, Line: d.Line, Level: checks.LevelFailure,
			Title: cut(fmt.Sprintf("%s reads the key %s, which the runner no longer writes", d.Consumer, d.Key), maxTitle),
			Message: fmt.Sprintf("The runner %s wrote %s in %s at the base and does not write a key %s at the head; %s:%d reads it: %s",
				scen.Template, d.BasePath, k.Result, d.Key, d.Consumer, d.Line, d.Text),
		})
	}
	title := fmt.Sprintf("the runner no longer writes %s that %s reads", plural(len(k.Drops), "key", "keys"), k.Drops[0].Consumer)
	if res.Conclusion == checks.Failure && res.Title != "" {
		res.Title = res.Title + "; " + title
	} else {
		res.Title = upperFirst(title)
	}
	res.Conclusion = checks.Failure
	return res
}
