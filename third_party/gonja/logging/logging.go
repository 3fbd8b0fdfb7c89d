// Package logging is gonja's logger: a flag that says whether parse and
// lex tracing is on, and the records themselves, written with log/slog.
//
// Upstream logged through logrus; this fork uses the standard library
// instead (see PATCHES.md), with the same defaults: tracing is off until
// SetOutput gives it a writer other than io.Discard, records below the
// level (Info by default) are dropped, and errors go to slog.Default()
// until SetOutput is called.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync/atomic"
)

// LevelTrace is the level of the parser's and lexer's trace records, one
// step below slog.LevelDebug.
const LevelTrace = slog.LevelDebug - 4

// Fields are the attributes of one trace record.
type Fields = map[string]any

var (
	enabled int32
	level   slog.LevelVar // zero value: slog.LevelInfo
	logger  atomic.Pointer[slog.Logger]
)

// SetEnabled turns tracing on or off.
func SetEnabled(v bool) {
	if v {
		atomic.StoreInt32(&enabled, 1)
	} else {
		atomic.StoreInt32(&enabled, 0)
	}
}

// Enabled reports whether tracing is on; callers check it before they
// build a record's fields.
func Enabled() bool {
	return atomic.LoadInt32(&enabled) == 1
}

// SetOutput sends gonja's records to w as slog text records.
func SetOutput(w io.Writer) {
	logger.Store(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: &level})))
}

// SetLevel drops records below l; LevelTrace keeps the trace records.
func SetLevel(l slog.Level) {
	level.Set(l)
}

func current() *slog.Logger {
	if l := logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// Trace writes msg with fields (in key order) at LevelTrace.
func Trace(fields Fields, msg string) {
	l := current()
	ctx := context.Background()
	if !l.Enabled(ctx, LevelTrace) {
		return
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	attrs := make([]slog.Attr, 0, len(keys))
	for _, k := range keys {
		attrs = append(attrs, slog.Any(k, fields[k]))
	}
	l.LogAttrs(ctx, LevelTrace, msg, attrs...)
}

// Errorf writes a formatted message at slog.LevelError.
func Errorf(format string, args ...any) {
	current().Error(fmt.Sprintf(format, args...))
}
