package app

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// checkCredentialsDir refuses a credentials folder that exists and that
// another user could change: a symlink, a folder of another owner, or
// one that its group or other users may write (0777 lets anyone replace
// the key or the webhook secret before serve reads them; the files
// themselves are 0600). It does not change
// the mode: the folder may be shared on purpose, so the user decides. A
// folder that does not exist is fine: writeCredentials makes it 0700.
func checkCredentialsDir(dir string) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the credentials folder: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("the credentials folder %s is not a folder (a symlink or a file)", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("the credentials folder %s belongs to user %d, not to this user (%d): use a folder of your own", dir, sys.Uid, os.Geteuid())
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("the credentials folder %s has mode %04o, so other users can replace its files: run chmod go-w %s (700 is best), or give a new folder", dir, perm, dir)
	}
	return nil
}
