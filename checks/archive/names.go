package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode/utf8"
)

// maxNameBytes is the longest member name, link target, user or group name
// kept whole. A tar's PAX header can give a name of up to 1 MiB; a longer
// string keeps its first and last nameEnds bytes and its sha256, so memory
// and every report stay bounded and two different names stay different.
const maxNameBytes = 255

// nameEnds is how many bytes of each end of a long name are kept.
const nameEnds = 96

// boundName returns s when it has at most maxNameBytes bytes; else its
// first and last bytes (cut at whole UTF-8 characters) around its length
// and sha256. The short form is always longer than maxNameBytes, so no
// name kept whole can equal the short form of a long one.
func boundName(s string) string {
	if len(s) <= maxNameBytes {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	head := s[:nameEnds]
	for len(head) > 0 && !utf8.RuneStart(s[len(head)]) {
		head = head[:len(head)-1]
	}
	tail := s[len(s)-nameEnds:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s…[%d bytes, sha256 %s]…%s", head, len(s), hex.EncodeToString(sum[:]), tail)
}
