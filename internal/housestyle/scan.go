package housestyle

import (
	"regexp"
	"strings"
)

// kind is what one line of markdown is.
type kind int

const (
	kindBlank   kind = iota
	kindProse        // paragraph text or a list item
	kindHeading      // an ATX heading
	kindTable        // a row of a table
	kindFence        // an opening or closing fence line
	kindCode         // a line inside a fence
	kindHTML         // a line that starts with an HTML tag
	kindComment      // a line of an HTML comment
	kindBreak        // a thematic break: ---, ***, ___
	kindSetext       // a setext underline under a paragraph line
)

// line is one classified line of the input.
type line struct {
	n       int // 1-based line number
	raw     string
	kind    kind
	level   int    // heading level for kindHeading
	heading string // heading text for kindHeading
	item    bool   // starts a list item
	ordered bool   // the list item is numbered
	text    string // content without list marker, heading marks or tags
	section string // the current "## " section, "" before the first
	lang    string // info string of the fence this line belongs to
	fenceAt int    // line number of the opening fence for kindFence/kindCode
}

var (
	atxRe       = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	breakRe     = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	setextEqRe  = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	itemRe      = regexp.MustCompile(`^([ \t]*)([-*+•]|\d{1,9}[.)])(?:[ \t]+(.*))?$`)
	delimRowRe  = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	htmlLineRe  = regexp.MustCompile(`^[ \t]*</?[A-Za-z][A-Za-z0-9-]*(?:[ \t>/]|$)`)
	tagRe       = regexp.MustCompile(`</?[A-Za-z][^<>]*>`)
	closingHead = regexp.MustCompile(`[ \t]+#+$`)
)

// fenceOpen reports whether s opens a code fence, with its marker and info.
func fenceOpen(s string) (marker string, info string, ok bool) {
	t := strings.TrimLeft(s, " \t")
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return "", "", false
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	info = strings.TrimSpace(t[n:])
	if c == '`' && strings.Contains(info, "`") {
		return "", "", false // inline code such as ```x```, not a fence
	}
	return t[:n], info, true
}

// fenceCloses reports whether s closes a fence opened with marker.
func fenceCloses(s, marker string) bool {
	t := strings.TrimLeft(s, " \t")
	c := marker[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	return n >= len(marker) && strings.TrimSpace(t[n:]) == ""
}

// scan classifies every line of md.
func scan(md string) []line {
	raw := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	lines := make([]line, len(raw))
	var (
		marker, lang string
		fenceAt      int
		inComment    bool
		inTable      bool
		section      string
	)
	for i, s := range raw {
		l := line{n: i + 1, raw: s}
		switch {
		case marker != "":
			l.lang, l.fenceAt = lang, fenceAt
			if fenceCloses(s, marker) {
				l.kind = kindFence
				marker = ""
			} else {
				l.kind = kindCode
			}
		case inComment:
			l.kind = kindComment
			if strings.Contains(s, "-->") {
				inComment = false
			}
		case strings.TrimSpace(s) == "":
			l.kind = kindBlank
			inTable = false
		default:
			classify(&l, raw, i, &inTable)
			if l.kind == kindFence {
				marker, lang, fenceAt = l.text, l.lang, l.n
				l.fenceAt = l.n
				l.text = ""
			}
			if l.kind == kindComment && !strings.Contains(s[strings.Index(s, "<!--")+4:], "-->") {
				inComment = true
			}
		}
		if l.kind == kindHeading && l.level == 2 {
			section = l.heading
		}
		l.section = section
		lines[i] = l
	}
	return lines
}

// classify sets the kind of a line that is not inside a fence or comment.
func classify(l *line, raw []string, i int, inTable *bool) {
	s := l.raw
	prevProse := i > 0 && isParagraphText(raw[i-1])
	if m, info, ok := fenceOpen(s); ok {
		l.kind, l.text, l.lang = kindFence, m, info
		*inTable = false
		return
	}
	if strings.HasPrefix(strings.TrimSpace(s), "<!--") {
		l.kind = kindComment
		return
	}
	if *inTable && strings.Contains(s, "|") {
		l.kind, l.text = kindTable, s
		return
	}
	*inTable = false
	if strings.Contains(s, "|") && i+1 < len(raw) && strings.Contains(raw[i+1], "|") && delimRowRe.MatchString(raw[i+1]) && strings.Contains(raw[i+1], "-") {
		l.kind, l.text = kindTable, s
		*inTable = true
		return
	}
	if m := atxRe.FindStringSubmatch(s); m != nil {
		l.kind, l.level = kindHeading, len(m[1])
		l.heading = strings.TrimSpace(closingHead.ReplaceAllString(m[2], ""))
		l.text = l.heading
		return
	}
	if prevProse && (setextEqRe.MatchString(s) || breakRe.MatchString(s) && strings.Contains(s, "-")) && !itemRe.MatchString(raw[i-1]) {
		l.kind = kindSetext
		return
	}
	if breakRe.MatchString(s) {
		l.kind = kindBreak
		return
	}
	if m := itemRe.FindStringSubmatch(s); m != nil {
		l.kind, l.item, l.text = kindProse, true, m[3]
		l.ordered = m[2][0] >= '0' && m[2][0] <= '9'
		return
	}
	if htmlLineRe.MatchString(s) {
		l.kind = kindHTML
		l.text = strings.TrimSpace(tagRe.ReplaceAllString(s, " "))
		return
	}
	l.kind, l.text = kindProse, strings.TrimSpace(s)
}

// isParagraphText reports whether s could be a line of paragraph text, so
// that a "---" line under it makes a setext heading.
func isParagraphText(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || breakRe.MatchString(s) || atxRe.MatchString(s) || htmlLineRe.MatchString(s) || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "<!--") {
		return false
	}
	if _, _, ok := fenceOpen(s); ok {
		return false
	}
	return true
}
