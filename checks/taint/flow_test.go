package taint

import (
	"slices"
	"strings"
	"testing"

	"github.com/formula-code/template-verify/config"
)

// src is a source of a file the agent can write.
const src = ". /etc/profile.d/env.sh\n"

// narrowed is a config's taint.agent_writable that narrows the writable
// files to the profile folder and the repository (the default is every
// path): the tests of path resolution need files the agent cannot write.
var narrowed = []string{"/etc/profile.d/*", "/workspace/repo/**"}

// varUses lists the variables a script reads uncovered, each as NAME or
// NAME<-FROM,... when it carries other names.
func varUses(t *testing.T, script string) []string {
	t.Helper()
	a, err := Analyze(script, narrowed)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range a.Uses {
		if u.Kind != KindVariable || u.Name == "PATH" {
			continue
		}
		s := u.Name
		if len(u.From) > 0 {
			s += "<-" + strings.Join(u.From, ",")
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TestFlow: a read is covered when a plain assignment that carries no
// agent value reaches it on every path after the last source. Each row is
// a small script and exactly the variables it reads uncovered.
func TestFlow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         []string
	}{
		// Sequences.
		{"no source", "echo \"$X\"\n", nil},
		{"assigned after the source", src + "X=1\necho \"$X\"\n", nil},
		{"assigned before the source", "X=1\n" + src + "echo \"$X\"\n", []string{"X"}},
		{"read before the source", "echo \"$X\"\n" + src, nil},
		{"a second source uncovers", src + "X=1\n" + src + "echo \"$X\"\n", []string{"X"}},
		{"a source of a path the agent cannot write", ". /usr/lib/env.sh\necho \"$X\"\n", nil},
		{"the assignment reads the agent's value", src + "X=\"${X:-}\"\necho \"$X\"\n", []string{"X"}},
		{"derived from another name", src + "B=\"${SHA:-abc}\"\necho \"$B\"\n", []string{"B<-SHA", "SHA"}},
		{"a literal after a derived value", src + "B=\"$SHA\"\nB=x\necho \"$B\"\n", []string{"SHA"}},
		// Branches.
		{"if and else both assign", src + "if c; then X=1; else X=2; fi\necho \"$X\"\n", nil},
		{"only then assigns", src + "if c; then X=1; fi\necho \"$X\"\n", []string{"X"}},
		{"elif without else", src + "if c; then X=1; elif d; then X=2; fi\necho \"$X\"\n", []string{"X"}},
		{"else exits", src + "if c; then X=1; else exit 1; fi\necho \"$X\"\n", nil},
		{"the branch depends on an agent value", src + "if [ \"$F\" = 1 ]; then X=1; else X=0; fi\necho \"$X\"\n", []string{"F", "X<-F"}},
		{"and-list may skip", src + "c && X=1\necho \"$X\"\n", []string{"X"}},
		{"or-list exits", src + "X=1 || exit 1\necho \"$X\"\n", nil},
		{"case with a catch-all", src + "case lit in a) X=1 ;; *) X=2 ;; esac\necho \"$X\"\n", nil},
		{"case without a catch-all", src + "case lit in a) X=1 ;; b) X=2 ;; esac\necho \"$X\"\n", []string{"X"}},
		{"a source in one branch", "X=1\nif c; then " + strings.TrimSpace(src) + "; fi\necho \"$X\"\n", []string{"X"}},
		// Loops: a body may run zero times.
		{"while body assigns", src + "while c; do X=1; done\necho \"$X\"\n", []string{"X"}},
		{"for body assigns", src + "for i in a b; do X=1; done\necho \"$X\"\n", []string{"X"}},
		{"for variable in its body", src + "for f in a b; do echo \"$f\"; done\n", nil},
		{"assigned before the loop, read in it", src + "X=1\nwhile c; do echo \"$X\"; done\n", nil},
		{"the body uncovers for the next pass", src + "X=1\nwhile c; do echo \"$X\"; X=\"$Y\"; done\n", []string{"X<-Y", "Y"}},
		{"break after a source in the loop", "X=1\nwhile :; do " + strings.TrimSpace(src) + "; break; done\necho \"$X\"\n", []string{"X"}},
		// Functions: a body runs with the caller's state at each call.
		{"call after the assignment", src + "f() { echo \"$X\"; }\nX=1\nf\n", nil},
		{"call before the assignment", src + "f() { echo \"$X\"; }\nf\nX=1\nf\n", []string{"X"}},
		{"the function assigns", src + "g() { X=1; }\ng\necho \"$X\"\n", nil},
		{"an early return", src + "g() { if c; then return; fi; X=1; }\ng\necho \"$X\"\n", []string{"X"}},
		{"local ends with the call", src + "g() { local X=1; echo \"$X\"; }\ng\necho \"$X\"\n", []string{"X"}},
		{"a function that sources", "X=1\nload() { " + strings.TrimSpace(src) + "; }\nload\necho \"$X\"\n", []string{"X"}},
		{"a function body never called", src + "f() { echo \"$X\"; }\n", nil},
		// Subshells keep their assignments.
		{"subshell", src + "( X=1 )\necho \"$X\"\n", []string{"X"}},
		{"pipeline", src + "true | X=1\necho \"$X\"\n", []string{"X"}},
		{"command substitution", src + "Y=$(X=1)\necho \"$X\"\n", []string{"X"}},
		{"a substitution's output carries its reads", src + "Y=\"$(echo \"$X\")\"\necho \"$Y\"\n", []string{"X", "Y<-X"}},
		{"a prefix assignment is for the command only", src + "X=1 cmd\necho \"$X\"\n", []string{"X"}},
		// Declarations.
		{"export with a value", src + "export X=1\necho \"$X\"\n", nil},
		{"a bare export passes the value on", src + "export X\n", []string{"X"}},
		{"declare with a value", src + "declare X=1\necho \"$X\"\n", nil},
		{"readonly with a value", src + "readonly X=1\necho \"$X\"\n", nil},
		{"readonly after the source keeps the agent's value", src + "readonly X\nX=1\necho \"$X\"\n", []string{"X"}},
		{"readonly before the source", "readonly X=1\n" + src + "echo \"$X\"\n", nil},
		{"readonly copy of a flag before the source", "readonly S=\"${FLAG:-}\"\nunset FLAG\n" + src + "echo \"$S\"\n", nil},
		{"unset after the source", src + "unset X\necho \"${X:-d}\"\n", nil},
		{"read assigns", src + "read -r X < /dev/null\necho \"$X\"\n", nil},
		{"arithmetic assigns", src + "(( X = 1 ))\necho \"$X\"\n", nil},
		{"arithmetic from an agent value", src + "(( X = N + 1 ))\necho \"$X\"\n", []string{"N", "X<-N"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := varUses(t, tc.script); !slices.Equal(got, tc.want) {
				t.Errorf("uncovered reads %q, want %q\n%s", got, tc.want, tc.script)
			}
		})
	}
}

// TestReasons: the reads that make a name protected without taint.protect.
func TestReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		use          string // the name whose reason is checked
		reason, via  string
	}{
		{"a default", src + "echo \"${X:-1}\"\n", "X", ReasonDefault, ""},
		{"a default without a colon", src + "echo \"${X-1}\"\n", "X", ReasonDefault, ""},
		{"an assigning default", src + "echo \"${X:=1}\"\n", "X", ReasonDefault, ""},
		{"a plain read", src + "echo \"$X\"\n", "X", "", ""},
		{"an alternative is no default", src + "echo ${X:+--flag}\n", "X", "", ""},
		{"git through a derived name", src + "B=\"$SHA\"\ngit diff \"$B\"\n", "SHA", ReasonGit, "B"},
		{"git in a function", src + "d() { git diff \"$B\" \"$@\"; }\nd --stat\n", "B", ReasonGit, ""},
		{"a base option", src + "python run.py --base \"$B\"\n", "B", ReasonBase, ""},
		{"a base option with =", src + "python run.py --base-commit=\"$B\"\n", "B", ReasonBase, ""},
		{"another option", src + "python run.py --rounds \"$B\"\n", "B", "", ""},
		{"a redirection's file", src + "echo 1 > \"$D/reward.json\"\n", "D", ReasonPath, ""},
		{"git over a default", src + "B=\"${SHA:-abc}\"\ngit diff \"$B\"\n", "SHA", ReasonGit, "B"},
		// datasmith 1e2909a: _py_rc is set in one branch and read with a
		// fallback in another; the script's own name, not one from outside.
		{"a default of a name the script assigns in a branch", src + "if [ -n \"$RUN\" ]; then\n  python run.py\n  _py_rc=$?\nfi\necho \"${_py_rc:-0}\"\n", "_py_rc", "", ""},
		{"a default of a name a loop assigns", src + "for f in a b; do :; done\necho \"${f:-none}\"\n", "f", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := Analyze(tc.script, config.DefaultAgentWritable)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range a.Uses {
				if u.Kind == KindVariable && u.Name == tc.use {
					if u.Reason != tc.reason || u.ReasonVia != tc.via || !u.Direct {
						t.Errorf("%s: reason %q via %q (direct %v), want %q via %q", u.Name, u.Reason, u.ReasonVia, u.Direct, tc.reason, tc.via)
					}
					return
				}
			}
			t.Errorf("no use of %s", tc.use)
		})
	}
}

// TestEveryPathWritableByDefault: with no config, every sourced file is
// one the agent may have written, unless every path to the source wrote
// it anew first (a > redirection, tee without -a).
func TestEveryPathWritableByDefault(t *testing.T) {
	t.Parallel()
	const read = "echo \"$FC_SKIP_PYTEST\"\n"
	tests := []struct {
		name, script string
		tainted      bool
	}{
		{"a file under the agent user's home folder", ". \"$HOME/.fc_env\"\n" + read, true},
		{"a literal home path", "source /home/agent/.profile\n" + read, true},
		{"a system library", ". /usr/lib/x.sh\n" + read, true},
		{"a file the script wrote with a heredoc", "cat > /tmp/env.sh <<'EOF'\nFC_SKIP_PYTEST=0\nEOF\n. /tmp/env.sh\n" + read, false},
		{"a file the script wrote with tee", "printf 'A=1\\n' | tee /tmp/env.sh >/dev/null\n. /tmp/env.sh\n" + read, false},
		{"a file the script appended to", "echo A=1 >> /tmp/env.sh\n. /tmp/env.sh\n" + read, true},
		{"a file tee appended to", "echo A=1 | tee -a /tmp/env.sh\n. /tmp/env.sh\n" + read, true},
		{"a file written on one branch only", "if c; then echo A=1 > /tmp/env.sh; fi\n. /tmp/env.sh\n" + read, true},
		{"a file written in a subshell", "( echo A=1 > /tmp/env.sh )\n. /tmp/env.sh\n" + read, false},
		{"a file written in the background", "echo A=1 > /tmp/env.sh &\n. /tmp/env.sh\n" + read, true},
		{"another file written", "echo A=1 > /tmp/other.sh\n. /tmp/env.sh\n" + read, true},
		{"a written file and then an agent's", "echo A=1 > /tmp/env.sh\n. /tmp/env.sh\n. /etc/profile.d/x.sh\n" + read, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := Analyze(tc.script, config.DefaultAgentWritable)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.ContainsFunc(a.Uses, func(u Use) bool { return u.Kind == KindVariable && u.Name == "FC_SKIP_PYTEST" })
			if got != tc.tainted {
				t.Errorf("FC_SKIP_PYTEST read uncovered = %v, want %v\n%s", got, tc.tainted, tc.script)
			}
		})
	}
}
