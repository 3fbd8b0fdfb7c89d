package selfhash

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// TestHexIsTheExecutablesHash: the hash is that of the test binary's bytes.
func TestHexIsTheExecutablesHash(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("no executable path: %v", err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got, want := Hex(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Hex() = %q, want %q", got, want)
	}
}
