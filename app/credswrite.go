// Writing the App's credentials into their folder, each file new and private.

package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// writeCredentials writes the files of c into dir (made 0700 if
// missing), each 0600. It refuses to replace a file that exists.
func writeCredentials(dir string, c Credentials) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("make the credentials folder: %w", err)
	}
	if err := checkCredentialsDir(dir); err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{FilePrivateKey, c.PrivateKey},
		{FileWebhookSecret, c.WebhookSecret},
		{FileAppSlug, []byte(c.Slug + "\n")},
		{FileAppID, []byte(strconv.FormatInt(c.AppID, 10) + "\n")},
	}
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(dir, f.name)); err == nil {
			return fmt.Errorf("%s exists already: move the old credentials away first", filepath.Join(dir, f.name))
		}
	}
	// The App id goes last: serve takes a folder with an app-id file as
	// complete.
	for _, f := range files {
		if err := writeNew(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

func writeNew(path string, data []byte) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write the credentials: %w", err)
	}
	if _, err := fh.Write(data); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
