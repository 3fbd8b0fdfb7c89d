// Package gonja implements a Jinja2-like template engine for Go.
package gonja

import (
	_ "github.com/formula-code/template-verify/third_party/gonja/docs"
)
