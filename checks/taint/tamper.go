package taint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sandbox"
	"mvdan.cc/sh/v3/syntax"
)

// MaxTamperHeads is the most distinct script heads (head text and the
// names the rest reads) one run tampers with; each costs ten runs.
const MaxTamperHeads = 16

// RunTimeout limits one tamper run of a script's head.
var RunTimeout = 30 * time.Second

// change is a value the rest of the script reads that a hostile profile
// file changed.
type change struct {
	name, from, to string
	form           string // export, assignment, declare -g, unset
	dir            string // "on": set to 1 with nothing incoming; "off": set to 0 or unset with 1 incoming
}

func (c change) key() string { return c.name + "\x00" + c.form + "\x00" + c.dir }

type tamperResult struct {
	findings []checks.Finding
	figures  []checks.Figure
	notes    []string
	tables   []checks.Table
	notRun   string
	// confirmed holds, by template and name, what the tamper run found for
	// a name that already has a static finding: it goes into that finding.
	confirmed map[string][]string
	summary   string
}

// forms are the ways a hostile file sets a name. Each first tries the
// form in a subshell, so that a readonly name does not stop the script
// (the real file could do the same).
var forms = []struct {
	name string
	on   string // %[1]s is the name, %[2]s the value
}{
	{"export", "( export %[1]s=%[2]s ) 2>/dev/null && export %[1]s=%[2]s\n"},
	{"assignment", "( %[1]s=%[2]s ) 2>/dev/null && %[1]s=%[2]s\n"},
	{"declare -g", "( declare -g %[1]s=%[2]s ) 2>/dev/null && declare -g %[1]s=%[2]s\n"},
}

// tamperAll runs the tamper test on the head of every script that sources
// an agent-writable file (one variable set per distinct head), and on the
// base's script where the head's shows a change.
func (c *Check) tamperAll(ctx context.Context, in *checks.Input, st settings, heads, bases []*script, preFails bool) tamperResult {
	return c.tamperWith(ctx, in, st, heads, bases, preFails, nil)
}

// tamperWith is tamperAll; a change of a name in static (template and name)
// goes into tr.confirmed instead of a finding of its own.
func (c *Check) tamperWith(ctx context.Context, in *checks.Input, st settings, heads, bases []*script, preFails bool, static map[string]bool) tamperResult {
	tr := tamperResult{confirmed: map[string][]string{}}
	if !st.tamper {
		tr.figures = append(tr.figures, checks.Figure{Label: "Tamper runs", Value: "not run (taint.tamper: false)"})
		return tr
	}
	seen := map[string]bool{}
	emitted := map[string]int{} // finding key -> index in tr.findings
	runs, scripts := 0, 0
	var rows [][]string
	for _, h := range heads {
		if len(h.an.Sources) == 0 {
			continue
		}
		head, rest, ok := cutHead(h, st)
		if !ok {
			tr.notes = append(tr.notes, fmt.Sprintf("%s (%s): no line after the source matches taint.steps, so the tamper run did not run for it.", h.tmpl.Path, h.set))
			continue
		}
		k := head + "\x00" + strings.Join(restReads(rest, h.an.Names), " ")
		if seen[k] {
			continue
		}
		if scripts == MaxTamperHeads {
			tr.notes = append(tr.notes, fmt.Sprintf("The tamper run ran the first %d distinct script heads; the others did not run.", MaxTamperHeads))
			break
		}
		seen[k] = true
		scripts++
		changes, n, err := tamperOne(ctx, in, st, h, head, rest)
		runs += n
		if err != nil {
			// The other heads would most likely stop the same way, each
			// after up to RunTimeout.
			tr.notRun = fmt.Sprintf("%s (%s): %v", h.tmpl.Path, h.set, err)
			break
		}
		if len(changes) == 0 {
			continue
		}
		old := map[string]bool{}
		for _, b := range bases {
			if b.tmpl.OldPath == h.tmpl.OldPath && b.set == h.set && len(b.an.Sources) > 0 {
				bh, brest, ok := cutHead(b, st)
				if !ok {
					continue
				}
				bc, bn, berr := tamperOne(ctx, in, st, b, bh, brest)
				runs += bn
				if berr == nil {
					for _, x := range bc {
						old[x.key()] = true
					}
				}
			}
		}
		// One finding per name and direction, with the forms that did it.
		type group struct {
			x     change
			forms []string
			old   bool
		}
		var groups []*group
		byName := map[string]*group{}
		for _, x := range changes {
			k := x.name + "\x00" + x.dir
			g, ok := byName[k]
			if !ok {
				g = &group{x: x, old: true}
				byName[k] = g
				groups = append(groups, g)
			}
			g.forms = append(g.forms, x.form)
			g.old = g.old && old[x.key()]
			rows = append(rows, []string{h.tmpl.Path, h.set, x.form, x.dir, x.name, x.from, x.to, yesNo(old[x.key()])})
		}
		for _, g := range groups {
			x := g.x
			what := fmt.Sprintf("sets every protected name to 1 (nothing incoming) by %s", strings.Join(g.forms, ", "))
			if x.dir == "off" {
				what = fmt.Sprintf("sets every protected name to 0 or unsets it (1 incoming) by %s", strings.Join(g.forms, ", "))
			}
			f := checks.Finding{Path: h.tmpl.Path, Line: h.templateLine(h.an.Sources[0].Line), Level: checks.LevelFailure,
				Title: fmt.Sprintf("A profile file turns %s %s", x.name, x.dir),
				Message: fmt.Sprintf("The tamper run ran the script's head up to the first step of taint.steps. A hostile file in %s %s. %s was %s in the clean run and %s with the file. The rest of the script reads it (variable set %s).",
					st.profile, what, x.name, x.from, x.to, h.set)}
			if g.old {
				if !preFails {
					f.Level = checks.LevelWarning
				}
				f.Message += " This fails before this change too."
			}
			if sk := h.tmpl.Path + "\x00" + x.name; static[sk] {
				tr.confirmed[sk] = append(tr.confirmed[sk], fmt.Sprintf("%s %s by %s (variable set %s)", x.name, x.dir, strings.Join(g.forms, ", "), h.set))
				continue
			}
			// The same change in another variable set adds its set.
			k := f.Path + "\x00" + f.Title + "\x00" + string(f.Level)
			if i, ok := emitted[k]; ok {
				tr.findings[i].Message += fmt.Sprintf(" The same happens in variable set %s.", h.set)
				continue
			}
			emitted[k] = len(tr.findings)
			tr.findings = append(tr.findings, f)
		}
	}
	if scripts == 0 && tr.notRun == "" {
		tr.figures = append(tr.figures, checks.Figure{Label: "Tamper runs", Value: "not run (no script head to run)"})
		return tr
	}
	sandboxed := "in the " + sandbox.Label() + " sandbox"
	if !sandbox.Available() {
		sandboxed = "without a sandbox (bubblewrap is not usable here)"
	}
	tr.figures = append(tr.figures, checks.Figure{Label: "Tamper runs (script head with hostile profile files)", Value: fmt.Sprintf("%d runs of %s, %s; %d values changed", runs, plural(scripts, "script head"), sandboxed, len(rows))})
	if len(rows) > 0 {
		tr.tables = append(tr.tables, checks.Table{Title: "Values a hostile profile file changed", Header: []string{"Template", "Variable set", "Form", "Direction", "Name", "Clean run", "Hostile run", "At base"}, Rows: rows})
	}
	if tr.notRun == "" {
		tr.summary = fmt.Sprintf("The tamper run (%d runs) changed no value the rest of the script reads.", runs)
	}
	return tr
}

// cutHead splits a script at the first line after its first source that
// matches a step pattern: the head runs, the rest is probed.
func cutHead(s *script, st settings) (head, rest string, ok bool) {
	lines := strings.SplitAfter(s.text, "\n")
	var steps []*regexp.Regexp
	for _, p := range st.steps {
		if re, err := regexp.Compile(p); err == nil {
			steps = append(steps, re)
		}
	}
	cut := -1
	for i := s.an.Sources[0].Line; i < len(lines) && cut < 0; i++ {
		for _, re := range steps {
			if re.MatchString(strings.TrimRight(lines[i], "\n")) {
				cut = i
				break
			}
		}
	}
	if cut < 0 {
		return "", "", false
	}
	return strings.Join(lines[:cut], ""), strings.Join(lines[cut:], ""), true
}

// tamperOne runs the head of one script: a clean run and a run with 1 in
// every protected name, then one run per hostile form in each direction.
// It returns the changes and the number of runs. The two clean runs, then
// the seven hostile runs, run up to MaxParallelRuns at a time, each in its
// own folder; the last clean run starts after all of them.
func tamperOne(ctx context.Context, in *checks.Input, st settings, s *script, head, rest string) ([]change, int, error) {
	probe := restReads(rest, s.an.Names)
	var hostile []string
	for _, n := range append(slices.Clone(s.an.Names), probe...) {
		if st.protected(n) && !slices.Contains(hostile, n) {
			hostile = append(hostile, n)
		}
	}
	for n := range st.protectedUses(s.an) {
		if !slices.Contains(hostile, n) {
			hostile = append(hostile, n)
		}
	}
	for _, p := range st.protect {
		if syntax.ValidName(p) && !slices.Contains(hostile, p) {
			hostile = append(hostile, p)
		}
	}
	slices.Sort(hostile)
	if len(probe) == 0 || len(hostile) == 0 {
		return nil, 0, nil
	}
	// The hostile content goes into 00-tamper.sh and into every profile
	// file the head names, so that commands on those files (chmod under
	// set -e, say) succeed and their source reads it.
	named := profileFiles(head, st.profile)
	mark := "__template_verify_probe_" + randomHex() + "__"
	var started atomic.Int32
	// Each run gets a new folder: the head is PR code, and it may replace
	// anything in its folder (the profile folder by a link, say), so the
	// tool never writes into or lists a folder a run has had.
	run := func(incoming bool, profile, label string) (map[string]string, error) {
		started.Add(1)
		dir, err := os.MkdirTemp(in.WorkDir, "taint-")
		if err != nil {
			return nil, fmt.Errorf("work folder: %w", err)
		}
		defer os.RemoveAll(dir)
		for _, d := range []string{"profile.d", "repo", "logs", "home"} {
			if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
				return nil, fmt.Errorf("work folder: %w", err)
			}
		}
		scriptPath := filepath.Join(dir, "head.sh")
		if err := os.WriteFile(scriptPath, []byte(mapPaths(head, in, st, dir)+probeScript(mark, probe)), 0o644); err != nil {
			return nil, fmt.Errorf("write the head: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "profile.d", "00-tamper.sh"), []byte(profile), 0o644); err != nil {
			return nil, fmt.Errorf("write the profile file: %w", err)
		}
		for _, name := range named {
			// A name that clashes with another (a folder of that name)
			// is left out; the run goes on with the others.
			f := filepath.Join(dir, "profile.d", name)
			if os.MkdirAll(filepath.Dir(f), 0o755) == nil {
				_ = os.WriteFile(f, []byte(profile), 0o644)
			}
		}
		var env []string
		if incoming {
			for _, n := range hostile {
				env = append(env, n+"=1")
			}
		}
		out := sandbox.Run(ctx, sandbox.Spec{Args: []string{"bash", scriptPath}, Dir: filepath.Join(dir, "repo"), Home: filepath.Join(dir, "home"),
			Env: env, Writable: []string{dir}, Timeout: RunTimeout, Sandbox: true, MaxOutput: 1 << 20})
		if out.Err != nil && !out.TimedOut && out.ExitCode < 0 {
			return nil, fmt.Errorf("the script's head did not start: %w", out.Err)
		}
		_, after, ok := strings.Cut(string(out.Stdout), mark+"\n")
		if !ok {
			why := "exit " + strconv.Itoa(out.ExitCode)
			if out.TimedOut {
				why = "time limit " + RunTimeout.String()
			}
			return nil, fmt.Errorf("the script's head stopped before the first step in %s (%s): %s", label, why, strings.TrimSpace(sandbox.Tail(out.Stderr, 300)))
		}
		vals := map[string]string{}
		for _, l := range strings.Split(after, "\n") {
			if n, v, ok := strings.Cut(l, "="); ok && slices.Contains(probe, n) {
				vals[n] = v
			} else if n, ok := strings.CutSuffix(l, " unset"); ok && slices.Contains(probe, n) {
				vals[n] = "unset"
			}
		}
		return vals, nil
	}
	// A clean run that stops says the sandbox, not a hostile file, stops
	// the head. That is still not run, never a pass: nothing was compared,
	// and the head is PR code that can stop in the sandbox on purpose.
	const clean = "the clean run, with empty profile files, so a hostile file does not cause it"
	cleans, err := runAll(run, []tamperJob{{incoming: false, label: clean}, {incoming: true, label: clean}})
	if err != nil {
		return nil, int(started.Load()), err
	}
	cleanOff, cleanOn := cleans[0], cleans[1]
	// The hostile runs: each form in each direction, then unset.
	var jobs []tamperJob
	for _, f := range forms {
		var on, off strings.Builder
		for _, n := range hostile {
			fmt.Fprintf(&on, f.on, n, "1")
			fmt.Fprintf(&off, f.on, n, "0")
		}
		on.WriteString("true\n")
		off.WriteString("true\n")
		jobs = append(jobs,
			tamperJob{incoming: false, profile: on.String(), label: "the run with a hostile file (" + f.name + ", on), while the clean runs reached it", form: f.name, dir: "on"},
			tamperJob{incoming: true, profile: off.String(), label: "the run with a hostile file (" + f.name + ", off), while the clean runs reached it", form: f.name, dir: "off"})
	}
	var unset strings.Builder
	for _, n := range hostile {
		fmt.Fprintf(&unset, "( unset %[1]s ) 2>/dev/null && unset %[1]s\n", n)
	}
	unset.WriteString("true\n")
	jobs = append(jobs, tamperJob{incoming: true, profile: unset.String(), label: "the run with a hostile file (unset, off), while the clean runs reached it", form: "unset", dir: "off"})
	got, err := runAll(run, jobs)
	if err != nil {
		return nil, int(started.Load()), err
	}
	var changes []change
	for i, j := range jobs {
		want := cleanOff
		if j.incoming {
			want = cleanOn
		}
		for _, n := range probe {
			if want[n] != got[i][n] {
				changes = append(changes, change{name: n, from: show(want[n]), to: show(got[i][n]), form: j.form, dir: j.dir})
			}
		}
	}
	// A value that differs between the first clean run and a clean run
	// after all the hostile ones (a timestamp such as datasmith's
	// test_start=$(date +%s), a random name) changes without any hostile
	// file: it proves nothing. Time only moves forward, so a clock value
	// that moved during the hostile runs differs here too.
	last, err := runAll(run, []tamperJob{{incoming: false, label: clean}})
	if err != nil {
		return nil, int(started.Load()), err
	}
	cleanLast := last[0]
	kept := changes[:0]
	for _, x := range changes {
		if cleanOff[x.name] == cleanLast[x.name] {
			kept = append(kept, x)
		}
	}
	return kept, int(started.Load()), nil
}

// tamperJob is one run of a script's head: with 1 in every protected name
// incoming or not, the content of the profile files, the label of the run
// in messages, and the form and direction of a hostile run.
type tamperJob struct {
	incoming       bool
	profile, label string
	form, dir      string
}

// MaxParallelRuns is the most tamper runs of one script head at a time.
const MaxParallelRuns = 4

// runAll runs the jobs, at most MaxParallelRuns at a time, each in its own
// folder, and returns their values in order; the error is that of the
// first job (in order) that failed.
func runAll(run func(incoming bool, profile, label string) (map[string]string, error), jobs []tamperJob) ([]map[string]string, error) {
	vals := make([]map[string]string, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, MaxParallelRuns)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			vals[i], errs[i] = run(j.incoming, j.profile, j.label)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return vals, nil
}
