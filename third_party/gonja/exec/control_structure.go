package exec

import (
	"github.com/formula-code/template-verify/third_party/gonja/nodes"
)

type ControlStructure interface {
	nodes.ControlStructure
	Execute(*Renderer, *nodes.ControlStructureBlock) error
}
