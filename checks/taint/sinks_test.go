package taint

import (
	"maps"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// TestTaintReachesASink: a name the sourced file can set fails the check
// when its value reaches git, a --base option, a redirection's file or a
// protected name, by whatever road: assignments, function arguments,
// loops, substitutions, arrays. A reassignment that clears the value on
// every path clears the failure. Each row is a script and exactly the
// protected names with why (settings.protectedUses with the defaults).
func TestTaintReachesASink(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         map[string]string
	}{
		// Straight to the sink.
		{"git argument", src + "git diff \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"git by its path", src + "/usr/bin/git checkout \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"git -C folder", src + "git -C \"$DIR\" status\n", map[string]string{"DIR": ReasonGit}},
		{"the git command after the sink is no sink", src + "git status\necho \"$SHA\"\n", map[string]string{}},
		{"a base option", src + "python3 grade.py --baseline \"$B\"\n", map[string]string{"B": ReasonBase}},
		{"a base_ option with =", src + "python3 grade.py --base_sha=\"$B\"\n", map[string]string{"B": ReasonBase}},
		{"a value after another option", src + "python3 grade.py --out \"$B\"\n", map[string]string{}},
		{"a file written", src + "echo 1 >> \"$OUT\"\n", map[string]string{"OUT": ReasonPath}},
		{"a file read", src + "python3 x.py < \"$IN\"\n", map[string]string{"IN": ReasonPath}},
		{"a here-document is no file", src + "cat <<EOF\n$TEXT\nEOF\n", map[string]string{}},
		// Through assignments.
		{"one copy", src + "B=\"$SHA\"\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"two copies", src + "A=\"$SHA\"\nB=\"x$A\"\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"a substitution's result", src + "B=$(echo \"$SHA\" | tr a-f A-F)\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"an array", src + "ARGS=(diff \"$SHA\")\ngit \"${ARGS[@]}\"\n", map[string]string{"SHA": ReasonGit}},
		{"printf -v", src + "printf -v B '%s' \"$SHA\"\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"arithmetic", src + "N=$(( DEPTH + 1 ))\ngit log -n \"$N\"\n", map[string]string{"DEPTH": ReasonGit}},
		{"a path built from a name", src + "F=\"$DIR/reward.json\"\necho 1 > \"$F\"\n", map[string]string{"DIR": ReasonPath}},
		// A reassignment clears.
		{"reassigned before the sink", src + "B=\"$SHA\"\nB=HEAD\ngit diff \"$B\"\n", map[string]string{}},
		{"reassigned on one branch only", src + "B=\"$SHA\"\nif c; then B=HEAD; fi\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"reassigned on both branches", src + "B=\"$SHA\"\nif c; then B=HEAD; else B=main; fi\ngit diff \"$B\"\n", map[string]string{}},
		{"the branch is the agent's", src + "if [ \"$FAST\" = 1 ]; then B=HEAD; else B=main; fi\ngit diff \"$B\"\n", map[string]string{"FAST": ReasonGit}},
		{"read before the source", "B=\"$SHA\"\n" + src + "B=x\ngit diff \"$B\"\n", map[string]string{}},
		// Function arguments and bodies.
		{"a function body reads the name", src + "d() { git diff \"$B\"; }\nd\n", map[string]string{"B": ReasonGit}},
		{"a function assigns before the sink", src + "set_b() { B=HEAD; }\nset_b\ngit diff \"$B\"\n", map[string]string{}},
		{"a function's local is not the caller's", src + "f() { local B=HEAD; }\nf\ngit diff \"$B\"\n", map[string]string{"B": ReasonGit}},
		{"a function's result through a substitution", src + "base() { echo \"$SHA\"; }\nB=$(base)\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"a function argument", src + "d() { git diff \"$1\"; }\nd \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"all arguments", src + "g() { git \"$@\"; }\ng diff \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"an argument copied to a local", src + "d() { local b=\"$1\"; git diff \"$b\"; }\nd \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"an argument the body does not pass on", src + "d() { git diff HEAD; echo \"$1\"; }\nd \"$SHA\"\n", map[string]string{}},
		{"a literal argument", src + "d() { git diff \"$1\"; }\nd HEAD\n", map[string]string{}},
		{"an argument after a shift", src + "d() { shift; git diff \"$1\"; }\nd HEAD \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"an argument a shift drops", src + "d() { shift; git diff \"$1\"; }\nd \"$SHA\" HEAD\n", map[string]string{}},
		{"a shift the walk cannot count", src + "d() { shift \"$(echo 1)\"; git diff \"$1\"; }\nd HEAD \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"set -- replaces the arguments", src + "d() { set -- HEAD; git diff \"$1\"; }\nd \"$SHA\"\n", map[string]string{}},
		{"an argument through two functions", src + "inner() { git diff \"$1\"; }\nouter() { inner \"$1\"; }\nouter \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"an argument through a substitution in the body", src + "d() { B=$(echo \"$1\"); git diff \"$B\"; }\nd \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"the script's own arguments are not the agent's", src + "git diff \"$1\" \"$@\"\n", map[string]string{}},
		// Wrappers that run their arguments as a command.
		{"sudo with a user", src + "sudo -u grader git diff \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"git as an argument of echo", src + "echo git \"$SHA\"\n", map[string]string{}},
		{"command git", src + "command git diff \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"env git", src + "env GIT_PAGER=cat git diff \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		{"timeout git", src + "timeout 60 git fetch origin \"$SHA\"\n", map[string]string{"SHA": ReasonGit}},
		// Loops.
		{"a loop variable over a tainted list", src + "for r in $REFS; do git show \"$r\"; done\n", map[string]string{"REFS": ReasonGit}},
		{"a loop that may not run leaves the taint", src + "B=\"$SHA\"\nfor i in $(seq 0); do B=HEAD; done\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"a value made on the previous pass", src + "B=HEAD\nwhile c; do git diff \"$B\"; B=\"$SHA\"; done\n", map[string]string{"SHA": ReasonGit}},
		// Defaults and protected names.
		{"a default", src + "echo \"${MODE:-fast}\"\n", map[string]string{"MODE": ReasonDefault}},
		{"a default reaching git says git", src + "B=\"${SHA:-HEAD}\"\ngit diff \"$B\"\n", map[string]string{"SHA": ReasonGit}},
		{"a protected name", src + "echo \"$FC_SKIP_SNAPSHOT\"\n", map[string]string{"FC_SKIP_SNAPSHOT": "protect"}},
		{"a value that feeds a protected name", src + "T=\"$RAW\"\nFC_PYTEST_TIMEOUT=\"$T\"\necho \"$FC_PYTEST_TIMEOUT\"\n", map[string]string{"RAW": "feeds FC_PYTEST_TIMEOUT"}},
		{"a protected name assigned a literal", src + "FC_SKIP_PYTEST=0\necho \"$FC_SKIP_PYTEST\"\n", map[string]string{}},
		{"a protected name made readonly before the source", "readonly FC_SKIP_PYTEST=0\n" + src + "echo \"$FC_SKIP_PYTEST\"\n", map[string]string{}},
		// No source of an agent-writable file: nothing is tainted.
		{"no source", "git diff \"$SHA\"\necho \"${MODE:-x}\" \"$FC_SKIP_PYTEST\"\n", map[string]string{}},
		{"a source of a file the script wrote", "cat > /tmp/env.sh <<'EOF'\nA=1\nEOF\n. /tmp/env.sh\ngit diff \"$SHA\"\n", map[string]string{}},
		{"a source of a system file: every path is writable by default", ". /usr/lib/x.sh\ngit diff \"$SHA\"\n", map[string]string{"SHA": "git"}},
	}
	st := settingsOf(config.Default(), config.Default())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			an, err := Analyze(tc.script, st.writable)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.protectedUses(an); !maps.Equal(got, tc.want) {
				t.Errorf("protected %v, want %v\n%s", got, tc.want, tc.script)
			}
		})
	}
}

// TestCommandAt finds the program a command line runs past the wrappers.
func TestCommandAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want int
	}{
		{"git diff", 0},
		{"command git diff", 1},
		{"command -- git diff", 2},
		{"env A=1 B=2 git diff", 3},
		{"env -u HOME -i A=1 git", 5},
		{"timeout 60 git fetch", 2},
		{"timeout -k 5 -s KILL 60 git fetch", 6},
		{"nice -n 5 nohup git gc", 4},
		{"sudo -u grader git diff", 3},
		{"exec git", 1},
		{"env", 1},
		{"timeout 60", 2},
		{"echo git", 0},
	}
	for _, tc := range tests {
		if got := commandAt(strings.Fields(tc.line)); got != tc.want {
			t.Errorf("commandAt(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}
