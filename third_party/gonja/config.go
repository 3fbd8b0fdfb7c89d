package gonja

import "github.com/formula-code/template-verify/third_party/gonja/config"

type Config config.Config

var NewConfig = config.New
