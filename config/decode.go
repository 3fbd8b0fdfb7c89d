package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a configuration error that names the file and, where known, the
// line.
type Error struct {
	File string
	Line int // 0 when unknown
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// Decode reads a configuration file strictly. file names it in errors. The
// keys it sets replace the defaults of the same keys; the rest keep their
// defaults.
func Decode(file string, data []byte) (*Config, error) {
	if !utf8Valid(data) {
		return nil, &Error{File: file, Msg: "the file is not valid UTF-8"}
	}
	cfg := Default()
	cfg.Source = file
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(file, err)
	}
	if len(root.Content) == 0 { // empty file: all defaults
		return cfg, nil
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: root.Content[0].Line, Msg: "the top level must be a mapping of keys"}
	}
	// The defaults of a block that the file names are replaced whole, so
	// that a file's restore or pytest block does not inherit default paths
	// it did not ask for.
	for i := 0; i+1 < len(root.Content[0].Content); i += 2 {
		switch root.Content[0].Content[i].Value {
		case "restore":
			cfg.Restore = &Restore{Explicit: true}
		case "pytest":
			cfg.Pytest = &Pytest{}
		case "sync":
			cfg.Sync = &Sync{Explicit: true}
		case "groups":
			cfg.Groups = nil
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(file, err)
	}
	// A file that replaces the groups keeps the default restore block: it
	// names datasmith's template, and where the groups do not have it the
	// restore check looks for the step in their shell templates.
	if err := cfg.validate(file, root.Content[0]); err != nil {
		return nil, err
	}
	return cfg, nil
}

// yamlError turns a yaml.v3 error into an Error with the first line it names.
// yaml.v3 lists several type errors at once; all are kept in the message.
func yamlError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		first := &Error{File: file}
		var msgs []string
		for _, e := range te.Errors {
			if m := yamlLine.FindStringSubmatch(e); m != nil {
				n, _ := strconv.Atoi(m[1])
				if first.Line == 0 {
					first.Line = n
				}
				msgs = append(msgs, fmt.Sprintf("line %s: %s", m[1], friendlyUnknownKey(m[2])))
				continue
			}
			msgs = append(msgs, friendlyUnknownKey(e))
		}
		first.Msg = strings.Join(msgs, "; ")
		if len(msgs) == 1 {
			first.Msg = strings.TrimPrefix(msgs[0], fmt.Sprintf("line %d: ", first.Line))
		}
		return first
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: n, Msg: friendlyUnknownKey(m[2])}
	}
	return &Error{File: file, Msg: strings.TrimPrefix(msg, "yaml: ")}
}
