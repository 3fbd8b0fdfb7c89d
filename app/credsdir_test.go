package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	templateverify "github.com/formula-code/template-verify"
)

// serve --register refuses a credentials folder that other users can
// change, and says why; it never writes the key into it (issue 20: an
// existing 0777 folder was used as it was).
func TestRegisterRefusesAnOpenFolder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(open, link); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{open: "has mode 0777, so other users can replace its files: run chmod go-w", link: "is not a folder"} {
		_, err := NewRegistrar(RegisterConfig{PublicURL: "https://verify.example.org", Manifest: templateverify.AppManifest, Dir: dir, Token: regToken})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewRegistrar(%s): %v; want an error with %q", filepath.Base(dir), err, want)
		}
		if err := writeCredentials(dir, Credentials{AppID: 1, Slug: "s", PrivateKey: []byte("k"), WebhookSecret: []byte("w")}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("writeCredentials(%s): %v; want an error with %q", filepath.Base(dir), err, want)
		}
	}
	if entries, _ := os.ReadDir(open); len(entries) != 0 {
		t.Errorf("the open folder got %d files", len(entries))
	}
	// A new folder, and one of mode 0700, are fine.
	for _, dir := range []string{filepath.Join(root, "new"), t.TempDir()} {
		if _, err := NewRegistrar(RegisterConfig{PublicURL: "https://verify.example.org", Manifest: templateverify.AppManifest, Dir: dir, Token: regToken}); err != nil {
			t.Errorf("NewRegistrar(%s): %v", dir, err)
		}
	}
}
