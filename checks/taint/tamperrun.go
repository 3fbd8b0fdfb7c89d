package taint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/sandbox"
	"mvdan.cc/sh/v3/syntax"
)

// tamperOne runs the head of one script: a clean run and a run with 1 in
// every protected name, then one run per hostile form in each direction.
// It returns the changes and the number of runs. The two clean runs, then
// the seven hostile runs, run up to MaxParallelRuns at a time, each in its
// own folder; the last clean run starts after all of them. It is long
// (about 150 lines): the runs share one folder scheme, one semaphore and
// the clean outputs they compare against, as closures; splitting them
// would pass all of that around. Left for a later split.
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
