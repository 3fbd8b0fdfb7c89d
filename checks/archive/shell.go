package archive

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// errNoShellDir is returned when the shell folder cannot be made.
var errNoShellDir = errors.New("no folder for bash -n")

// makeShellDir makes dir/base and dir/head.
func makeShellDir(dir string) error {
	for _, s := range []string{"base", "head"} {
		if err := os.MkdirAll(filepath.Join(dir, s), 0o755); err != nil {
			return fmt.Errorf("%w: %w", errNoShellDir, err)
		}
	}
	return nil
}

// isShell reports whether a member is a shell script: a .sh name or a
// bash or sh shebang.
func isShell(name string, data []byte) bool {
	if strings.HasSuffix(name, ".sh") {
		return true
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	if !bytes.HasPrefix(line, []byte("#!")) {
		return false
	}
	f := strings.Fields(strings.TrimPrefix(string(line), "#!"))
	if len(f) == 0 {
		return false
	}
	prog := path.Base(f[0])
	if prog == "env" && len(f) > 1 {
		prog = f[1]
	}
	return prog == "bash" || prog == "sh"
}

// shell writes a changed or added shell member for bash -n.
func (d *Diff) shell(b, h *member, opt Options) error {
	if opt.ShellDir == "" || h.Type != tar.TypeReg {
		return nil
	}
	if !h.HasData { // too large to keep: a shell member is counted as not checked
		if strings.HasSuffix(display(h.Name), ".sh") {
			d.ShellCut++
		}
		return nil
	}
	if !isText(h.Data) || !isShell(display(h.Name), h.Data) {
		return nil
	}
	if len(d.Shell) >= opt.MaxShell || d.shellBytes+int64(len(h.Data)) > maxShellBytes {
		d.ShellCut++
		return nil
	}
	d.shellBytes += int64(len(h.Data))
	f := ShellFile{Member: display(h.Name), File: fmt.Sprintf("%06d.sh", len(d.Shell)), HasBase: b != nil && b.HasData}
	if err := os.WriteFile(filepath.Join(opt.ShellDir, "head", f.File), h.Data, 0o644); err != nil {
		return fmt.Errorf("write a shell member for bash -n: %w", err)
	}
	if f.HasBase {
		if err := os.WriteFile(filepath.Join(opt.ShellDir, "base", f.File), b.Data, 0o644); err != nil {
			return fmt.Errorf("write a shell member for bash -n: %w", err)
		}
	}
	d.Shell = append(d.Shell, f)
	return nil
}
