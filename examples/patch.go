package examples

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// errPatchNotPlain marks a patch that applyPatch does not apply itself
// (binary files, renames, mode changes, a missing final newline): Build
// then lets git apply every patch.
var errPatchNotPlain = errors.New("the patch is not plain text hunks")

// tree is a work tree in memory: slash paths to contents.
type tree map[string][]byte

func (t tree) clone() tree { return maps.Clone(t) }

// filePatch is the part of a git diff for one file.
type filePatch struct {
	path          string
	created, gone bool
	hunks         []hunk
}

// hunk is one "@@ -oldStart,oldLines +newStart,newLines @@" block; its
// lines keep their first character (' ', '-' or '+') and their newline.
type hunk struct {
	oldStart, oldLines, newStart, newLines int
	lines                                  []string
	// at is the hunk's line in the patch, for errors.
	at int
}

// applyPatch applies a git diff made of plain text hunks to t, exactly at
// the lines the hunks name: the example's patches are made against the
// tree they apply to, so unlike git apply it looks for no offset. name
// is the patch's file, for errors. errPatchNotPlain: see there.
func applyPatch(t tree, patch []byte, name string) error {
	files, err := parsePatch(patch, name)
	if err != nil {
		return err
	}
	for _, f := range files {
		old, exists := t[f.path]
		switch {
		case f.created && exists:
			return fmt.Errorf("%s: %s already exists", name, f.path)
		case !f.created && !exists:
			return fmt.Errorf("%s: %s does not exist", name, f.path)
		}
		data, err := applyHunks(old, f.hunks, name, f.path)
		if err != nil {
			return err
		}
		if f.gone {
			if len(data) != 0 {
				return fmt.Errorf("%s: %s is deleted but its hunks leave %d bytes", name, f.path, len(data))
			}
			delete(t, f.path)
			continue
		}
		t[f.path] = data
	}
	return nil
}

// parsePatch splits a git diff into its files.
func parsePatch(patch []byte, name string) ([]filePatch, error) {
	lines := strings.SplitAfter(string(patch), "\n")
	var files []filePatch
	var cur *filePatch
	for i := 0; i < len(lines); i++ {
		line, at := lines[i], i+1
		if line == "" {
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			files = append(files, filePatch{})
			cur = &files[len(files)-1]
		case cur == nil:
			// Text before the first file (a mail header) is not patch.
		case strings.HasPrefix(line, "new file mode "):
			cur.created = true
		case strings.HasPrefix(line, "deleted file mode "):
			cur.gone = true
		case strings.HasPrefix(line, "index "):
		case strings.HasPrefix(line, "--- "):
			if p, ok := patchPath(line, "--- ", "a/"); ok {
				cur.path = p
			}
		case strings.HasPrefix(line, "+++ "):
			if p, ok := patchPath(line, "+++ ", "b/"); ok {
				cur.path = p
			}
		case strings.HasPrefix(line, "@@ "):
			h, err := parseHunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, at, err)
			}
			h.at = at
			// The hunk's lines: as many as its counts say.
			oldLeft, newLeft := h.oldLines, h.newLines
			for (oldLeft > 0 || newLeft > 0) && i+1 < len(lines) {
				i++
				l := lines[i]
				if l == "" {
					break // the end of the patch
				}
				if l == "\n" {
					// An empty context line whose space was trimmed.
					l = " \n"
				}
				switch l[0] {
				case ' ':
					oldLeft--
					newLeft--
				case '-':
					oldLeft--
				case '+':
					newLeft--
				default:
					return nil, fmt.Errorf("%s:%d: a hunk line must start with ' ', '-' or '+': %q", name, i+1, strings.TrimSuffix(l, "\n"))
				}
				if !strings.HasSuffix(l, "\n") {
					return nil, fmt.Errorf("%s:%d: %w (the last line has no newline)", name, i+1, errPatchNotPlain)
				}
				h.lines = append(h.lines, l)
			}
			if oldLeft != 0 || newLeft != 0 {
				return nil, fmt.Errorf("%s:%d: the hunk ends before its line counts", name, at)
			}
			if cur.path == "" {
				return nil, fmt.Errorf("%s:%d: a hunk before the file's --- and +++ lines", name, at)
			}
			cur.hunks = append(cur.hunks, h)
		default:
			// "\ No newline at end of file", binary patches, renames,
			// copies and mode changes.
			return nil, fmt.Errorf("%s:%d: %w: %q", name, at, errPatchNotPlain, strings.TrimSuffix(line, "\n"))
		}
	}
	for _, f := range files {
		if f.path == "" {
			return nil, fmt.Errorf("%s: %w: a file without --- and +++ lines", name, errPatchNotPlain)
		}
	}
	return files, nil
}

// patchPath reads the path of a "--- a/p" or "+++ b/p" line; /dev/null
// is no path.
func patchPath(line, marker, prefix string) (string, bool) {
	p := strings.TrimSuffix(strings.TrimPrefix(line, marker), "\n")
	if p == "/dev/null" {
		return "", false
	}
	return strings.TrimPrefix(p, prefix), true
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@…".
func parseHunkHeader(line string) (hunk, error) {
	var h hunk
	fields := strings.Fields(line)
	if len(fields) < 4 || fields[3] != "@@" || !strings.HasPrefix(fields[1], "-") || !strings.HasPrefix(fields[2], "+") {
		return h, fmt.Errorf("not a hunk header: %q", strings.TrimSpace(line))
	}
	var err error
	if h.oldStart, h.oldLines, err = parseRange(fields[1][1:]); err != nil {
		return h, fmt.Errorf("hunk header %q: %w", strings.TrimSpace(line), err)
	}
	if h.newStart, h.newLines, err = parseRange(fields[2][1:]); err != nil {
		return h, fmt.Errorf("hunk header %q: %w", strings.TrimSpace(line), err)
	}
	return h, nil
}

// parseRange reads "start[,count]"; the count is 1 when left out.
func parseRange(s string) (start, count int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(b); err != nil {
			return 0, 0, err
		}
	}
	return start, count, nil
}

// findHunk returns the line of src, at or after pos, where h's old
// lines (its context and removed lines) are. As git apply does, it
// looks at the line the hunk names first, then ever further above and
// below it; the example's patches were made against trees that earlier
// patches may have moved by a few lines.
func findHunk(src []string, pos int, h hunk, name, path string) (int, error) {
	var pre []string
	for _, l := range h.lines {
		if l[0] != '+' {
			pre = append(pre, l[1:])
		}
	}
	// A hunk that removes or keeps nothing names the line after which it
	// adds; the others name their first line.
	want := h.oldStart - 1
	if h.oldLines == 0 {
		want = h.oldStart
	}
	fits := func(at int) bool {
		if at < pos || at+len(pre) > len(src) {
			return false
		}
		for i, l := range pre {
			if src[at+i] != l {
				return false
			}
		}
		return true
	}
	if len(pre) == 0 {
		if want < pos || want > len(src) {
			return 0, fmt.Errorf("%s:%d: %s: the hunk adds after line %d, outside the file's %d lines", name, h.at, path, h.oldStart, len(src))
		}
		return want, nil
	}
	for off := 0; want-off >= pos || want+off+len(pre) <= len(src); off++ {
		if fits(want - off) {
			return want - off, nil
		}
		if off > 0 && fits(want+off) {
			return want + off, nil
		}
	}
	return 0, fmt.Errorf("%s:%d: %s: the hunk's %d old lines, from %q, are not in the file after line %d", name, h.at, path, len(pre), strings.TrimSuffix(pre[0], "\n"), pos)
}

// applyHunks applies hunks, in order, to old.
func applyHunks(old []byte, hunks []hunk, name, path string) ([]byte, error) {
	src := strings.SplitAfter(string(old), "\n")
	if len(src) > 0 && src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		return nil, fmt.Errorf("%s: %s: %w (it does not end with a newline)", name, path, errPatchNotPlain)
	}
	var out strings.Builder
	pos := 0 // the next line of src to copy
	for _, h := range hunks {
		start, err := findHunk(src, pos, h, name, path)
		if err != nil {
			return nil, err
		}
		for _, l := range src[pos:start] {
			out.WriteString(l)
		}
		pos = start
		for _, l := range h.lines {
			switch l[0] {
			case ' ':
				out.WriteString(l[1:])
				pos++
			case '-':
				pos++
			case '+':
				out.WriteString(l[1:])
			}
		}
	}
	for _, l := range src[pos:] {
		out.WriteString(l)
	}
	return []byte(out.String()), nil
}
