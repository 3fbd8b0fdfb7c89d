package builtins

import controlStructures "github.com/formula-code/template-verify/third_party/gonja/builtins/control_structures"

// ControlStructures exports all builtins controlStructures
var ControlStructures = controlStructures.All
