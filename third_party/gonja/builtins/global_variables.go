package builtins

import "github.com/formula-code/template-verify/third_party/gonja/exec"

var GlobalVariables = exec.NewContext(map[string]any{
	"gonja": map[string]any{
		"version": "v2.9.1",
	},
})
