package jinja

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/formula-code/template-verify/third_party/gonja/exec"
)

// Filters that replace gonja's own because gonja's bytes differ from
// Jinja2's; the conformance corpus shows each difference.

// filterToJSON is Jinja2's tojson: json.dumps with sort_keys=True and
// ensure_ascii, separators ", " and ": " (or "," and ": " with indent), then
// <, >, & and ' as \u escapes. gonja writes Go's compact JSON instead.
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	var indent *exec.Value
	if err := params.Take(exec.KeywordArgument("indent", exec.AsValue(nil), func(v *exec.Value) error {
		indent = v
		return nil
	})); err != nil {
		return exec.AsValue(exec.ErrInvalidCall(err))
	}
	w := &pyJSON{}
	if !indent.IsNil() {
		if !indent.IsInteger() {
			return exec.AsValue(fmt.Errorf("tojson: indent must be an integer, not %s", indent.String()))
		}
		w.indent, w.pretty = max(0, indent.Integer()), true
	}
	if err := w.value(in.Interface(), 0); err != nil {
		return exec.AsValue(fmt.Errorf("tojson: %w", err))
	}
	r := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "'", `\u0027`)
	return exec.AsSafeValue(r.Replace(w.b.String()))
}

// pyJSON writes JSON the way Python's json.dumps(sort_keys=True) does.
type pyJSON struct {
	b      strings.Builder
	pretty bool
	indent int
}

func (w *pyJSON) newline(depth int) {
	if w.pretty {
		w.b.WriteByte('\n')
		w.b.WriteString(strings.Repeat(" ", w.indent*depth))
	}
}

func (w *pyJSON) sep() {
	if w.pretty {
		w.b.WriteByte(',')
	} else {
		w.b.WriteString(", ")
	}
}

func (w *pyJSON) value(v any, depth int) error {
	if depth > 200 {
		return fmt.Errorf("the value nests deeper than 200 levels")
	}
	if v == nil {
		w.b.WriteString("null")
		return nil
	}
	switch x := v.(type) {
	case *exec.Value:
		return w.value(x.Interface(), depth+1)
	case *exec.Dict:
		return w.value(dictMap(x), depth+1)
	case exec.Dict:
		return w.value(dictMap(&x), depth+1)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		w.b.WriteString(strconv.FormatBool(rv.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		w.b.WriteString(pyFloatRepr(rv.Float()))
	case reflect.String:
		w.str(rv.String())
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			w.b.WriteString("null")
			return nil
		}
		return w.value(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			w.b.WriteString("[]")
			return nil
		}
		w.b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				w.sep()
			}
			w.newline(depth + 1)
			if err := w.value(rv.Index(i).Interface(), depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.b.WriteByte(']')
	case reflect.Map:
		return w.object(rv, depth)
	default:
		return fmt.Errorf("object of type %T is not JSON serializable", v)
	}
	return nil
}

func (w *pyJSON) object(rv reflect.Value, depth int) error {
	if rv.Len() == 0 {
		w.b.WriteString("{}")
		return nil
	}
	type entry struct {
		key   string
		num   float64
		isNum bool
		val   any
	}
	entries := make([]entry, 0, rv.Len())
	kinds := map[bool]bool{}
	for _, k := range rv.MapKeys() {
		kv := k
		if kv.Kind() == reflect.Interface && !kv.IsNil() {
			kv = kv.Elem()
		}
		e := entry{val: rv.MapIndex(k).Interface()}
		switch kv.Kind() {
		case reflect.String:
			e.key = kv.String()
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			e.key, e.num, e.isNum = strconv.FormatInt(kv.Int(), 10), float64(kv.Int()), true
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			e.key, e.num, e.isNum = strconv.FormatUint(kv.Uint(), 10), float64(kv.Uint()), true
		case reflect.Float32, reflect.Float64:
			e.key, e.num, e.isNum = pyFloatRepr(kv.Float()), kv.Float(), true
		case reflect.Bool:
			e.key, e.isNum = strconv.FormatBool(kv.Bool()), true
			if kv.Bool() {
				e.num = 1
			}
		default:
			return fmt.Errorf("keys must be str, int, float or bool, not %s", kv.Type())
		}
		kinds[e.isNum] = true
		entries = append(entries, e)
	}
	if len(kinds) > 1 {
		return fmt.Errorf("'<' not supported between a str key and a number key")
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].isNum {
			return entries[i].num < entries[j].num
		}
		return pyStringLess(entries[i].key, entries[j].key)
	})
	w.b.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			w.sep()
		}
		w.newline(depth + 1)
		w.str(e.key)
		w.b.WriteString(": ")
		if err := w.value(e.val, depth+1); err != nil {
			return err
		}
	}
	w.newline(depth)
	w.b.WriteByte('}')
	return nil
}

// dictMap turns a dict literal of a template into a map.
func dictMap(d *exec.Dict) map[any]any {
	m := make(map[any]any, len(d.Pairs))
	for _, p := range d.Pairs {
		m[p.Key.Interface()] = p.Value.Interface()
	}
	return m
}

// pyStringLess orders strings by code point, as Python compares str.
func pyStringLess(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return ra < rb
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

// str writes s as json.dumps(ensure_ascii=True) does.
func (w *pyJSON) str(s string) {
	w.b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			w.b.WriteString(`\"`)
		case '\\':
			w.b.WriteString(`\\`)
		case '\n':
			w.b.WriteString(`\n`)
		case '\r':
			w.b.WriteString(`\r`)
		case '\t':
			w.b.WriteString(`\t`)
		case '\b':
			w.b.WriteString(`\b`)
		case '\f':
			w.b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(&w.b, `\u%04x`, r)
			case r < 0x7f:
				w.b.WriteRune(r)
			case r > 0xffff:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&w.b, `\u%04x\u%04x`, r1, r2)
			default:
				fmt.Fprintf(&w.b, `\u%04x`, r)
			}
		}
	}
	w.b.WriteByte('"')
}

// pyFloatRepr formats f as Python's repr(float) does: positional notation
// for exponents from -4 to 15, else scientific; always a dot or an exponent.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if f != 0 && (exp < -4 || exp >= 16) {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// filterReverse is Jinja2's reverse: a string backwards, a list in reverse
// order. gonja's reverse sorts the list in descending order instead.
func filterReverse(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if err := params.Take(); err != nil {
		return exec.AsValue(exec.ErrInvalidCall(err))
	}
	if in.IsString() {
		r := []rune(in.String())
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return exec.AsValue(string(r))
	}
	out := []any{}
	in.IterateOrder(func(_, _ int, key, _ *exec.Value) bool {
		out = append(out, key.Interface())
		return true
	}, func() {}, true, false, false)
	return exec.AsValue(out)
}
