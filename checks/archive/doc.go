// Package archive is the archive check: when a pull request changes a
// dataset archive that the config names (tar, tar.gz), it compares the base
// and head archives member by member, as a reviewer would by hand: members
// added or removed, order, type, mode, size, mtime and owner; for changed
// text members the diff per member, grouped into distinct diffs once the
// configured masks (by default 40-hex commit shas) are applied; and bash -n,
// sandboxed, on every changed shell member.
//
// Both archives stream from git cat-file (or from the Git LFS object that a
// pointer names) through archive/tar, side by side: memory does not grow
// with the archive when the members keep their order. A blob is a Git LFS
// pointer only when git-lfs would take it for one (lfs.go); member names
// are kept bounded (names.go).
package archive
