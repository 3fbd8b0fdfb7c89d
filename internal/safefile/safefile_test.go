package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.json", `{"a":1}`)
	write("big", "0123456789")
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("S3CRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	must(os.Symlink("ok.json", filepath.Join(dir, "inlink")))
	must(os.Symlink(outside, filepath.Join(dir, "out")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))

	tests := []struct {
		rel  string
		max  int64
		want string
		err  error
	}{
		{"ok.json", 100, `{"a":1}`, nil},
		{"big", 10, "0123456789", nil},
		{"big", 9, "", ErrTooLarge},
		{"link", 100, "", ErrNotRegular},
		{"zero", 100, "", ErrNotRegular},
		{"inlink", 100, "", ErrNotRegular},
		{"fifo", 100, "", ErrNotRegular},
		{"sub", 100, "", ErrNotRegular},
		{"out/secret", 100, "", ErrOutside},
		{"../x", 100, "", ErrOutside},
		{"/etc/passwd", 100, "", ErrOutside},
		{"", 100, "", ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = ReadIn(dir, tt.rel, tt.max)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ReadIn blocked")
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("ReadIn(%q) = %q, %v; want %v", tt.rel, got, err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("ReadIn(%q) = %q, %v; want %q", tt.rel, got, err, tt.want)
			}
		})
	}
	// Read (a full path) refuses the same special files.
	for _, name := range []string{"link", "zero", "fifo"} {
		if _, err := Read(filepath.Join(dir, name), 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Read(%s): %v, want ErrNotRegular", name, err)
		}
	}
}
