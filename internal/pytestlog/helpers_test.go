package pytestlog

import (
	"os"
	"path/filepath"
	"testing"
)

func readLog(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "logs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
