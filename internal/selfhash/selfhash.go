// Package selfhash gives the hash of the running executable, read once per
// process: caches key their entries by it, so that a result is reused only
// by the same build of the tool.
package selfhash

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

// Hex is the hex SHA-256 of the running executable, "" when it cannot be
// read (then a cache keeps nothing).
var Hex = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})
