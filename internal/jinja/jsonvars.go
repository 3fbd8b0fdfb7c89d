package jinja

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// writeValue writes v as JSON that Python's json module reads back with
// the same types: integers without a dot (Python int), floats always with
// a dot or an exponent (Python float), NaN and infinities as Python writes
// them, nil as null (None). A map whose keys are not strings is written as
// {"__tv_map__": [[key, value], ...]}, which the script turns back into a
// dict.
func writeValue(b *bytes.Buffer, v any, depth int) error {
	if depth > 100 {
		return fmt.Errorf("the variables nest deeper than 100 levels")
	}
	if v == nil {
		b.WriteString("null")
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(rv.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(pyFloat(rv.Float(), rv.Type().Bits()))
	case reflect.String:
		s, _ := json.Marshal(rv.String())
		b.Write(s)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return writeValue(b, rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeValue(b, rv.Index(i).Interface(), depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case reflect.Map:
		return writeMap(b, rv, depth)
	default:
		// Anything else (a struct, a time) goes through encoding/json.
		s, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("variable of type %T: %w", v, err)
		}
		b.Write(s)
	}
	return nil
}

func writeMap(b *bytes.Buffer, rv reflect.Value, depth int) error {
	keys := rv.MapKeys()
	stringKeys := rv.Type().Key().Kind() == reflect.String
	if !stringKeys {
		stringKeys = true
		for _, k := range keys {
			if k.Kind() == reflect.Interface {
				k = k.Elem()
			}
			if k.Kind() != reflect.String {
				stringKeys = false
				break
			}
		}
	}
	// Sorted keys make the request the same from run to run.
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i].Interface()) < fmt.Sprint(keys[j].Interface()) })
	if stringKeys {
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			ks := k.Interface()
			name, _ := json.Marshal(fmt.Sprint(ks))
			b.Write(name)
			b.WriteByte(':')
			if err := writeValue(b, rv.MapIndex(k).Interface(), depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	}
	b.WriteString(`{"__tv_map__":[`)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		if err := writeValue(b, k.Interface(), depth+1); err != nil {
			return err
		}
		b.WriteByte(',')
		if err := writeValue(b, rv.MapIndex(k).Interface(), depth+1); err != nil {
			return err
		}
		b.WriteByte(']')
	}
	b.WriteString("]}")
	return nil
}

// pyFloat formats f as Python's json module reads a float.
func pyFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// hasher hashes a sequence of strings without ambiguity.
type hasher struct{ h hash.Hash }

func newHasher() *hasher { return &hasher{h: sha256.New()} }

func (h *hasher) add(s string) {
	_, _ = io.WriteString(h.h, strconv.Itoa(len(s))+":")
	_, _ = io.WriteString(h.h, s)
}

func (h *hasher) sum() string { return hex.EncodeToString(h.h.Sum(nil)) }
