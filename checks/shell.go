package checks

import (
	"strings"

	"github.com/formula-code/template-verify/config"
)

// IsShell decides whether a rendered template is a shell script (bash -n
// applies, the taint check reads it): the template entry says so
// (shell:), or the name ends in .sh or .bash, or the output starts with a
// bash or sh shebang.
func IsShell(entry config.Template, rel, output string) bool {
	if entry.Shell != nil {
		return *entry.Shell
	}
	if strings.HasSuffix(rel, ".sh") || strings.HasSuffix(rel, ".bash") {
		return true
	}
	first, _, _ := strings.Cut(output, "\n")
	return strings.HasPrefix(first, "#!") && (strings.HasSuffix(first, "/bash") || strings.HasSuffix(first, "/sh") || strings.HasSuffix(first, " bash") || strings.HasSuffix(first, " sh"))
}
