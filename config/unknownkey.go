package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/formula-code/template-verify/internal/suggest"
)

// unknownField matches yaml.v3's message for a key that no field takes.
var unknownField = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)

// keysByType maps the Go name of each struct type that a configuration
// file decodes into (as yaml.v3 names it, "config.Gate") to its keys.
var keysByType = func() map[string][]string {
	m := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if _, ok := m[t.String()]; ok {
			return
		}
		m[t.String()] = nil
		m[t.String()] = structKeys(t, walk)
	}
	walk(reflect.TypeFor[Config]())
	return m
}()

// structKeys lists the yaml keys of struct t (inline fields' keys too)
// and walks the types of its fields.
func structKeys(t reflect.Type, walk func(reflect.Type)) []string {
	var keys []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				keys = append(keys, structKeys(ft, walk)...)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys = append(keys, name)
		walk(f.Type)
	}
	return keys
}

// friendlyUnknownKey rewrites yaml.v3's "field X not found in type
// config.T" into words a user of the file reads: the key, the nearest
// known key, and the keys that the place takes. Any other message stays.
func friendlyUnknownKey(msg string) string {
	m := unknownField.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	keys, ok := keysByType[m[2]]
	if !ok {
		return fmt.Sprintf("unknown key %q", m[1])
	}
	out := fmt.Sprintf("unknown key %q", m[1])
	if near := suggest.Nearest(m[1], keys); near != "" {
		out += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return out + "; the keys here are " + strings.Join(keys, ", ") + " (docs/configuration.md)"
}
