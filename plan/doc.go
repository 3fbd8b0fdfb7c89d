// Package plan decides what one verification covers: the files a pull
// request changes (against the merge base, as GitHub shows them) and the
// templates to render, including templates whose included files changed.
package plan
