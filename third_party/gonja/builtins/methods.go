package builtins

import (
	methods "github.com/formula-code/template-verify/third_party/gonja/builtins/methods"
	"github.com/formula-code/template-verify/third_party/gonja/exec"
)

// Methods exports all builtins methods.
var Methods exec.Methods = methods.All
