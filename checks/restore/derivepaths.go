package restore

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/shparse"
)

// StepPaths are the absolute paths a restore step uses, read from its
// text: the repository it works in, the file it reads the baseline sha
// from, and the JSON report it writes (its folder is the log folder).
// An empty field was not found.
type StepPaths struct {
	Repo, BaselineSHA, Report string
}

// ReadStepPaths reads the step's paths with mvdan.cc/sh, the variables it
// assigns expanded: the repository is the first absolute folder it cd's
// into (or gives git -C); the report is the .json file it writes most
// often; the baseline file is the first absolute file it reads (a <
// redirect, cat, or a test such as [ -s FILE ]) outside /dev, /proc,
// /sys and /etc, preferring one whose name says sha, base or commit.
func ReadStepPaths(script string) (sp StepPaths) {
	defer func() {
		if recover() != nil {
			sp = StepPaths{} // a shape the reader did not foresee: no paths
		}
	}()
	file, err := shparse.Parse(script)
	if err != nil {
		return StepPaths{}
	}
	x := newExpander()
	if x.collectValues(file) != nil {
		return StepPaths{} // values past the reader's limits: no paths
	}
	lit := func(w *syntax.Word) string {
		if w == nil {
			return ""
		}
		s, err := x.literal(w)
		if err != nil || !strings.HasPrefix(s, "/") || strings.ContainsAny(s, "$*?[") {
			return ""
		}
		return path.Clean(s)
	}
	reports := map[string]int{}
	var reportOrder, reads []string
	syntax.Walk(file, func(n syntax.Node) bool {
		switch c := n.(type) {
		case *syntax.Stmt:
			for _, r := range c.Redirs {
				p := lit(r.Word)
				switch {
				case p == "":
				case r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrClob:
					if strings.HasSuffix(p, ".json") {
						if reports[p] == 0 {
							reportOrder = append(reportOrder, p)
						}
						reports[p]++
					}
				case r.Op == syntax.RdrIn:
					reads = append(reads, p)
				}
			}
		case *syntax.CallExpr:
			if len(c.Args) < 2 {
				return true
			}
			switch c.Args[0].Lit() {
			case "cd", "pushd":
				if p := lit(c.Args[len(c.Args)-1]); p != "" && sp.Repo == "" {
					sp.Repo = p
				}
			case "git":
				for i := 1; i+1 < len(c.Args); i++ {
					if c.Args[i].Lit() == "-C" {
						if p := lit(c.Args[i+1]); p != "" && sp.Repo == "" {
							sp.Repo = p
						}
					}
				}
			case "cat", "head", "tr", "read":
				for _, a := range c.Args[1:] {
					if p := lit(a); p != "" {
						reads = append(reads, p)
					}
				}
			case "[", "test":
				for i := 1; i+1 < len(c.Args); i++ {
					if op := c.Args[i].Lit(); op == "-s" || op == "-f" || op == "-r" || op == "-e" {
						if p := lit(c.Args[i+1]); p != "" {
							reads = append(reads, p)
						}
					}
				}
			}
		case *syntax.TestClause:
			syntax.Walk(c.X, func(n syntax.Node) bool {
				if u, ok := n.(*syntax.UnaryTest); ok {
					if w, ok := u.X.(*syntax.Word); ok {
						if p := lit(w); p != "" {
							reads = append(reads, p)
						}
					}
				}
				return true
			})
		}
		return true
	})
	best := 0
	for _, p := range reportOrder {
		if reports[p] > best {
			sp.Report, best = p, reports[p]
		}
	}
	var candidates []string
	for _, p := range reads {
		if p == sp.Report || isSystemPath(p) || (sp.Repo != "" && strings.HasPrefix(p, sp.Repo+"/")) || slices.Contains(candidates, p) {
			continue
		}
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		if baselineName.MatchString(path.Base(p)) {
			sp.BaselineSHA = p
			break
		}
	}
	if sp.BaselineSHA == "" && len(candidates) > 0 {
		sp.BaselineSHA = candidates[0]
	}
	return sp
}

var baselineName = regexp.MustCompile(`(?i)sha|base|commit|rev`)

func isSystemPath(p string) bool {
	for _, d := range []string{"/dev", "/proc", "/sys", "/etc", "/usr", "/bin", "/lib", "/tmp"} {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// applyStepPaths fills the step's paths that the config leaves to the
// step: a config file's restore block keeps every path it gives, the
// defaults give way to what the step says. It returns the fields taken
// from the step, for a note.
func applyStepPaths(s *Step, rc *config.Restore, read StepPaths) []string {
	var taken []string
	take := func(name string, dst *string, given, found string) {
		if found == "" || (rc.Explicit && given != "") || *dst == found {
			return
		}
		*dst = found
		taken = append(taken, name+" "+found)
	}
	take("repository", &s.Paths.Repo, rc.Paths.Repo, read.Repo)
	take("baseline file", &s.Paths.BaselineSHA, rc.Paths.BaselineSHA, read.BaselineSHA)
	if read.Report != "" && !(rc.Explicit && rc.Report != "") && s.Report != read.Report {
		s.Report = read.Report
		taken = append(taken, "report "+read.Report)
		if !(rc.Explicit && rc.Paths.Logs != "") {
			s.Paths.Logs = path.Dir(read.Report)
		}
	}
	return taken
}
