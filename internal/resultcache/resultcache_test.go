package resultcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteReadAndOff(t *testing.T) {
	root := t.TempDir()
	d := Open(WithRoot(context.Background(), root), "pytest/suite")
	if !d.On() || d.Path() != filepath.Join(root, "pytest", "suite") {
		t.Fatalf("Open: %+v", d)
	}
	d.Write("abc123", map[string]int{"n": 7})
	got, ok := d.Read("abc123")
	if !ok || string(got) != `{"n":7}` {
		t.Fatalf("Read: %q %v", got, ok)
	}
	if _, ok := d.Read("other"); ok {
		t.Error("an entry never written was read")
	}
	for _, bad := range []string{"", "../abc123", "a/b", "x.json", strings.Repeat("a", 129)} {
		d.Write(bad, 1)
		if _, ok := d.Read(bad); ok {
			t.Errorf("key %q was accepted", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "pytest", "abc123.json")); err == nil {
		t.Error("a key with a separator wrote outside its folder")
	}
	var off Dir
	off.Write("abc123", 1)
	if _, ok := off.Read("abc123"); ok || Open(context.Background(), "restore").On() {
		t.Error("the zero Dir or a context without a root keeps entries")
	}
}

func TestReadIsBounded(t *testing.T) {
	d := At(t.TempDir(), "observe")
	if err := os.MkdirAll(d.Path(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path(), "big.json"), make([]byte, maxEntry+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Read("big"); ok {
		t.Error("an entry over the bound was read")
	}
}

// Prune removes the entries used longest ago first: an old entry that a
// Read used survives a newer one that nobody read.
func TestPruneRemovesLeastRecentlyUsed(t *testing.T) {
	root := t.TempDir()
	d := At(root, "restore")
	old := time.Now().Add(-3 * time.Hour)
	for i, key := range []string{"a", "b", "c"} {
		d.Write(key, strings.Repeat("x", 100))
		at := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(d.Path(), key+".json"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := d.Read("a"); !ok { // a: written first, used last
		t.Fatal("a")
	}
	// A temporary file of an interrupted write, old and new.
	staleTmp := filepath.Join(d.Path(), "d.1.tmp")
	freshTmp := filepath.Join(d.Path(), "e.2.tmp")
	for _, p := range []string{staleTmp, freshTmp} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(staleTmp, old, old); err != nil {
		t.Fatal(err)
	}
	size := int64(len(`"` + strings.Repeat("x", 100) + `"`))
	removed, err := Prune(root, 2*size)
	if err != nil {
		t.Fatal(err)
	}
	if removed != size {
		t.Errorf("removed %d bytes, want %d", removed, size)
	}
	for key, want := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, ok := d.Read(key); ok != want {
			t.Errorf("entry %s kept %v, want %v", key, ok, want)
		}
	}
	if _, err := os.Stat(staleTmp); err == nil {
		t.Error("an hour-old temporary file was kept")
	}
	if _, err := os.Stat(freshTmp); err != nil {
		t.Error("a temporary file a write may still use was removed")
	}
	if n, err := Prune(filepath.Join(root, "none"), 0); n != 0 || err != nil {
		t.Errorf("a missing root: %d %v", n, err)
	}
}
