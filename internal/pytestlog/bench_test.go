package pytestlog

import (
	"strings"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	log := strings.Repeat(readLog(b, "real_verbose.log"), 100)
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		Parse(log)
	}
}
