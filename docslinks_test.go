package templateverify

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// pendingPages are pages that other branches write (the bench figures,
// the App's replicas, the dependency table). A link to one of them is
// checked once the page exists; until then the test only logs it.
// Remove an entry when its branch has merged.
var pendingPages = []string{"docs/performance.md", "docs/replicas.md", "docs/dependencies.md"}

// ownURL is this repository on GitHub: links to it are checked like
// relative ones (app.yml links to the README's App section this way).
const ownURL = "https://github.com/formula-code/template-verify"

// TestDocsLinks: every relative link (and every link to this repository
// on GitHub) in README.md, SECURITY.md, docs/**/*.md and app.yml names a
// file of the repository, and its #anchor a heading of that file.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	files := []string{"README.md", "SECURITY.md", "app.yml"}
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, filepath.ToSlash(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, links := checkLinks(".", files, pendingPages, t.Logf)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("checked %d links in %d files", links, len(files))
	if links < 50 {
		t.Errorf("found %d links in %v: the link reader is broken", links, files)
	}
}

// TestCheckLinksFindsBrokenLinks: the checker reports a missing file, a
// missing anchor, a link out of the repository and a link into a pending
// page's anchor that does not exist once the page does; it accepts what
// GitHub resolves.
func TestCheckLinksFindsBrokenLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Top\n\n## Quick start: the `run` command\n\n## Notes\n\n## Notes\n\n"+
		"[a](#quick-start-the-run-command) [b](#notes-1) [c](docs/page.md#a-b_c) [d](LICENSE)\n"+
		"[e](#nowhere) [f](docs/missing.md) [g](docs/page.md#gone) [h](../outside.md)\n"+
		"[i](docs/later.md) [j](docs/soon.md#x) [k](https://example.org/x#y) [l](docs/)\n"+
		"```sh\n[m](#in-a-fence)\n# not a heading\n```\n`[n](#in-code)`\n"+
		"[o]("+ownURL+"#top) [p]("+ownURL+"/blob/main/docs/page.md#nope)\n")
	write("LICENSE", "MIT\n")
	write("docs/page.md", "# A b_c!\n\n[back](../README.md#top)\n")
	write("docs/soon.md", "# Soon\n")
	problems, links := checkLinks(dir, []string{"README.md", "docs/page.md"}, []string{"docs/later.md", "docs/soon.md"}, t.Logf)
	want := []string{
		`README.md:10: #nowhere: no heading "nowhere" in README.md`,
		`README.md:10: docs/missing.md: no such file`,
		`README.md:10: docs/page.md#gone: no heading "gone" in docs/page.md`,
		`README.md:10: ../outside.md: outside the repository`,
		`README.md:11: docs/soon.md#x: no heading "x" in docs/soon.md`,
		`README.md:17: ` + ownURL + `/blob/main/docs/page.md#nope: no heading "nope" in docs/page.md`,
	}
	if !slices.Equal(problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
	if links != 15 {
		t.Errorf("%d links, want 15", links)
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Quick start: the GitHub Action":                              "quick-start-the-github-action",
		"`serve` refuses to start without a sandbox":                  "serve-refuses-to-start-without-a-sandbox",
		"Without a config file: read from the render code":            "without-a-config-file-read-from-the-render-code",
		"A restore step like the seeds', on datasmith's real test.sh": "a-restore-step-like-the-seeds-on-datasmiths-real-testsh",
		"Help, flag values and version":                               "help-flag-values-and-version",
		"[The link](x.md) and *emphasis*":                             "the-link-and-emphasis",
		"snake_case name":                                             "snake_case-name",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refDefRE  = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+(\S+)`)
	ownURLRE  = regexp.MustCompile(regexp.QuoteMeta(ownURL) + `(?:/(?:blob|tree)/[^/#\s]+/([\w./-]*[\w-]))?(#[\w-]*)?`)
	codeRE    = regexp.MustCompile("`+[^`]*`+")
	headingRE = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	inlineRE  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// checkLinks reads files (paths relative to root, with slashes) and
// returns one line per broken link, and the number of links it checked.
func checkLinks(root string, files, pending []string, logf func(string, ...any)) (problems []string, links int) {
	anchors := map[string]map[string]bool{}
	headings := func(name string) (map[string]bool, error) {
		if a, ok := anchors[name]; ok {
			return a, nil
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		a := map[string]bool{}
		seen := map[string]int{}
		eachLine(data, func(_ int, line string, fenced bool) {
			m := headingRE.FindStringSubmatch(line)
			if fenced || m == nil {
				return
			}
			s := slug(m[2])
			if n := seen[s]; n > 0 {
				a[fmt.Sprintf("%s-%d", s, n)] = true
			} else {
				a[s] = true
			}
			seen[s]++
		})
		anchors[name] = a
		return a, nil
	}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		markdown := strings.HasSuffix(name, ".md")
		eachLine(data, func(n int, line string, fenced bool) {
			var targets []string
			if markdown && !fenced {
				text := codeRE.ReplaceAllString(line, "")
				for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
					targets = append(targets, m[1])
				}
				if m := refDefRE.FindStringSubmatch(text); m != nil {
					targets = append(targets, m[1])
				}
			} else if !markdown {
				targets = ownURLRE.FindAllString(line, -1)
			}
			for _, target := range targets {
				links++
				if p := checkLink(root, name, target, pending, headings, logf); p != "" {
					problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", name, n, target, p))
				}
			}
		})
	}
	return problems, links
}

// checkLink returns why target, a link in the file from, does not
// resolve, or "".
func checkLink(root, from, target string, pending []string, headings func(string) (map[string]bool, error), logf func(string, ...any)) string {
	file, anchor, _ := strings.Cut(target, "#")
	switch {
	case strings.HasPrefix(target, ownURL):
		m := ownURLRE.FindStringSubmatch(target)
		if m == nil || m[0] != target {
			return "not a link this checker reads"
		}
		file, anchor = m[1], strings.TrimPrefix(m[2], "#")
		if file == "" {
			file = "README.md"
		}
		from = "README.md" // the path is from the repository's top
		file = "./" + file
	case strings.Contains(file, ":"):
		return "" // another site, or mailto:
	}
	name := from
	if file != "" {
		unescaped, err := url.PathUnescape(file)
		if err != nil {
			return err.Error()
		}
		name = path.Clean(path.Join(path.Dir(from), unescaped))
		if name == ".." || strings.HasPrefix(name, "../") {
			return "outside the repository"
		}
	}
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		if slices.Contains(pending, name) {
			logf("%s links to %s, which another branch writes: not checked", from, target)
			return ""
		}
		return "no such file"
	}
	if anchor == "" {
		return ""
	}
	if st.IsDir() || !strings.HasSuffix(name, ".md") {
		return "an anchor in a file that is not markdown"
	}
	a, err := headings(name)
	if err != nil {
		return err.Error()
	}
	if !a[anchor] {
		return fmt.Sprintf("no heading %q in %s", anchor, name)
	}
	return ""
}

// eachLine calls f with each line of a markdown file, its number (from
// 1), and whether it is inside a fenced code block (fence lines included).
func eachLine(data []byte, f func(n int, line string, fenced bool)) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	fence := ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			f(n, line, true)
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			f(n, line, true)
		default:
			f(n, line, false)
		}
	}
}

// slug is GitHub's anchor of a heading: the rendered text in lower case,
// without punctuation, with hyphens for spaces.
func slug(heading string) string {
	text := inlineRE.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
