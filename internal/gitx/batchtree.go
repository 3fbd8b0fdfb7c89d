package gitx

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// ReadFile returns the content of path at rev; ok is false when rev has no
// file there (a folder is an error, as for Repo.ReadFile).
func (b *Batch) ReadFile(ctx context.Context, rev, p string) ([]byte, bool, error) {
	obj, ok, err := b.Object(ctx, rev+":"+p)
	if err != nil || !ok {
		return nil, false, err
	}
	if obj.Type != "blob" {
		return nil, false, fmt.Errorf("%s:%s is a %s, not a file", rev, p, obj.Type)
	}
	return obj.Data, true, nil
}

// ListTree is Repo.ListTree through the batch: the blobs under dir at rev,
// recursively, in git's order; dir "" or "." is the whole tree, a dir that
// is a file lists that file, and a missing dir gives an empty list. An
// unknown rev is an error.
func (b *Batch) ListTree(ctx context.Context, rev, dir string) ([]Entry, error) {
	root, ok, err := b.Object(ctx, rev+"^{tree}")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("unknown revision %q", rev)
	}
	tree, prefix := root, ""
	if dir != "" && dir != "." {
		parts := strings.Split(path.Clean(dir), "/")
		for i, name := range parts {
			ents, err := parseTree(tree.Data, len(tree.OID)/2)
			if err != nil {
				return nil, fmt.Errorf("tree %s: %w", tree.OID, err)
			}
			e, found := findEntry(ents, name)
			if !found {
				return nil, nil
			}
			p := strings.Join(parts[:i+1], "/")
			if e.Mode != "040000" {
				if i == len(parts)-1 && e.Mode != "160000" {
					return []Entry{{Path: p, Mode: e.Mode, SHA: e.SHA}}, nil
				}
				return nil, nil
			}
			tree, err = b.tree(ctx, e.SHA)
			if err != nil {
				return nil, err
			}
			prefix = p + "/"
		}
	}
	var out []Entry
	if err := b.walk(ctx, tree, prefix, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *Batch) tree(ctx context.Context, oid string) (Object, error) {
	obj, ok, err := b.Object(ctx, oid)
	if err != nil {
		return Object{}, err
	}
	if !ok || obj.Type != "tree" {
		return Object{}, fmt.Errorf("tree %s cannot be read", oid)
	}
	return obj, nil
}

// walk appends the blobs of tree (recursively) with their paths after
// prefix. Submodules (commits) are not files.
func (b *Batch) walk(ctx context.Context, tree Object, prefix string, out *[]Entry) error {
	ents, err := parseTree(tree.Data, len(tree.OID)/2)
	if err != nil {
		return fmt.Errorf("tree %s: %w", tree.OID, err)
	}
	for _, e := range ents {
		switch e.Mode {
		case "160000":
		case "040000":
			sub, err := b.tree(ctx, e.SHA)
			if err != nil {
				return err
			}
			if err := b.walk(ctx, sub, prefix+e.Path+"/", out); err != nil {
				return err
			}
		default:
			*out = append(*out, Entry{Path: prefix + e.Path, Mode: e.Mode, SHA: e.SHA})
		}
	}
	return nil
}

// ReadTree is Repo.ReadTree through the batch: every file under dir at
// rev, keyed by repository path, with the entries (their modes).
func (b *Batch) ReadTree(ctx context.Context, rev, dir string) (map[string][]byte, []Entry, error) {
	entries, err := b.ListTree(ctx, rev, dir)
	if err != nil {
		return nil, nil, err
	}
	files := make(map[string][]byte, len(entries))
	byOID := map[string][]byte{}
	for _, e := range entries {
		data, ok := byOID[e.SHA]
		if !ok {
			obj, found, err := b.Object(ctx, e.SHA)
			if err != nil {
				return nil, nil, err
			}
			if !found || obj.Type != "blob" {
				return nil, nil, fmt.Errorf("blob %s of %s cannot be read", e.SHA, e.Path)
			}
			data = obj.Data
			byOID[e.SHA] = data
		}
		files[e.Path] = data
	}
	return files, entries, nil
}

// parseTree decodes a tree object: entries of "<octal mode> <name>\x00"
// and the raw object id of hashLen bytes. Modes come out as ls-tree
// prints them (canonical, six digits).
func parseTree(data []byte, hashLen int) ([]Entry, error) {
	if hashLen != 20 && hashLen != 32 {
		return nil, fmt.Errorf("object id of %d bytes", hashLen)
	}
	var out []Entry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || nul+1+hashLen > len(data) {
			return nil, fmt.Errorf("bad tree entry")
		}
		m, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("bad tree entry mode %q", data[:sp])
		}
		out = append(out, Entry{
			Path: string(data[sp+1 : nul]),
			Mode: canonMode(uint32(m)),
			SHA:  hex.EncodeToString(data[nul+1 : nul+1+hashLen]),
		})
		data = data[nul+1+hashLen:]
	}
	return out, nil
}

// canonMode is git's canon_mode, printed as ls-tree prints it.
func canonMode(m uint32) string {
	switch m & 0o170000 {
	case 0o040000:
		return "040000"
	case 0o120000:
		return "120000"
	case 0o160000:
		return "160000"
	}
	if m&0o100 != 0 {
		return "100755"
	}
	return "100644"
}

func findEntry(ents []Entry, name string) (Entry, bool) {
	for _, e := range ents {
		if e.Path == name {
			return e, true
		}
	}
	return Entry{}, false
}
