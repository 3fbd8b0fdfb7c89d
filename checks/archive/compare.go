package archive

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/formula-code/template-verify/internal/textdiff"
)

// Kinds of member change besides content, as archive.allow names them.
const (
	KindAdded   = "added"
	KindRemoved = "removed"
	KindOrder   = "order"
	KindMode    = "mode"
	KindMtime   = "mtime"
	KindOwner   = "owner"
	KindType    = "type"
)

// maxListed is how many member names a list in the result keeps.
const maxListed = 20

// maxGroups is how many distinct diffs keep an example; more are counted.
const maxGroups = 50

// maxExample is the longest example diff kept per group.
const maxExample = 64 << 10

// maxShellBytes bounds the bytes of shell members written for bash -n.
const maxShellBytes = 256 << 20

// diffContext is the context lines of a member diff: one line around each
// change keeps a one-line edit of a test.sh readable.
const diffContext = 1

// Mask is one compiled archive mask.
type Mask struct {
	Re      *regexp.Regexp
	Replace string
}

// Options controls one comparison.
type Options struct {
	Masks   []Mask
	MaxDiff int64 // largest member whose content is diffed
	// ShellDir, when set, receives every changed or added shell member:
	// head/<n>.sh and, where the base has it, base/<n>.sh.
	ShellDir string
	// MaxShell caps how many shell members are written.
	MaxShell int
	// MaxPending bounds the bytes of content kept for members that wait
	// for their partner (members out of order); past it only their sha256
	// is kept. 0: DefaultMaxPending.
	MaxPending int64
}

// DefaultMaxPending is Options.MaxPending when unset.
const DefaultMaxPending = 64 << 20

// member is one archive member. Data holds the content when it is at most
// Options.MaxDiff bytes; Sum always holds its sha256 for larger ones.
type member struct {
	Name         string
	Index        int
	Type         byte
	Mode         int64
	Size         int64
	ModTime      time.Time
	UID, GID     int
	Uname, Gname string
	Link         string
	Sum          [32]byte
	Data         []byte
	HasData      bool
}

// Kind is the count of one kind of member change, with an example.
type Kind struct {
	Count   int    `json:"count"`
	Example string `json:"example"` // member name
	Detail  string `json:"detail"`  // "0644 -> 0755"
}

// Group is one distinct diff after masking.
type Group struct {
	Count   int    `json:"count"`
	Example string `json:"example"` // member name
	Diff    string `json:"diff"`    // the example's diff, unmasked
}

// ShellFile is a changed shell member written to Options.ShellDir.
type ShellFile struct {
	Member  string
	File    string // under ShellDir/head
	HasBase bool   // ShellDir/base has the same file name
}

// Diff is the comparison of one archive at base and head.
type Diff struct {
	BaseFormat, HeadFormat   string
	BaseMembers, HeadMembers int
	Added, Removed           []string // at most maxListed names each
	Kinds                    map[string]*Kind
	// Changed counts members whose content differs; ChangedByName counts
	// them by base name ("test.sh").
	Changed       int
	ChangedByName map[string]int
	Groups        []*Group
	GroupsCut     int // distinct diffs past maxGroups, not kept
	Binary        int // changed members that are not text
	Large         int // changed members larger than MaxDiff
	Shell         []ShellFile
	ShellCut      int
	groupIndex    map[string]*Group
	shellBytes    int64
	pairs         [][2]int // (base index, head index) of matched members
}

// side reads one archive.
type side struct {
	tr     *tar.Reader
	n      int
	counts map[string]int
	buf    bytes.Buffer
	done   bool
}

// next reads the next member; it returns nil at the end. The member's Data
// aliases the side's buffer until the next call.
func (s *side) next(maxDiff int64) (*member, error) {
	if s.done {
		return nil, nil
	}
	h, err := s.tr.Next()
	if err == io.EOF {
		s.done = true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("member %d: %w", s.n+1, err)
	}
	// Names, link targets, users and groups are kept bounded: h and its
	// PAX records are dropped at the next member.
	name := boundName(h.Name)
	m := &member{
		Name: name, Index: s.n, Type: h.Typeflag, Mode: h.Mode, Size: h.Size, ModTime: h.ModTime,
		UID: h.Uid, GID: h.Gid, Uname: boundName(h.Uname), Gname: boundName(h.Gname), Link: boundName(h.Linkname),
	}
	s.n++
	if h.Size <= maxDiff {
		s.buf.Reset()
		if _, err := io.Copy(&s.buf, s.tr); err != nil {
			return nil, fmt.Errorf("member %s: %w", name, err)
		}
		m.Data, m.HasData = s.buf.Bytes(), true
	} else {
		hs := sha256.New()
		if _, err := io.Copy(hs, s.tr); err != nil {
			return nil, fmt.Errorf("member %s: %w", name, err)
		}
		copy(m.Sum[:], hs.Sum(nil))
	}
	// A name that occurs twice is matched by occurrence.
	k := s.counts[name]
	s.counts[name] = k + 1
	if k > 0 {
		m.Name = name + "\x00" + strconv.Itoa(k)
	}
	return m, nil
}

// keep detaches a member's data from the side's buffer. Past the budget
// of pending bytes it keeps only the data's sha256.
func keep(m *member, budget *int64) *member {
	if !m.HasData {
		return m
	}
	if int64(len(m.Data)) > *budget {
		m.Sum = sha256.Sum256(m.Data)
		m.Data, m.HasData = nil, false
		return m
	}
	*budget -= int64(len(m.Data))
	m.Data = bytes.Clone(m.Data)
	return m
}

// Compare reads both archives side by side and compares them member by
// member. Members that keep their order are compared as they stream; the
// others wait in a map until their partner arrives.
func Compare(base, head io.Reader, opt Options) (*Diff, error) {
	if opt.MaxDiff <= 0 {
		opt.MaxDiff = 1 << 20
	}
	if opt.MaxPending <= 0 {
		opt.MaxPending = DefaultMaxPending
	}
	budget := opt.MaxPending
	br, bfmt, bclose, err := decompress(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	defer bclose()
	hr, hfmt, hclose, err := decompress(head)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	defer hclose()
	d := &Diff{BaseFormat: bfmt, HeadFormat: hfmt, Kinds: map[string]*Kind{}, ChangedByName: map[string]int{}, groupIndex: map[string]*Group{}}
	bs := &side{tr: tar.NewReader(br), counts: map[string]int{}}
	hs := &side{tr: tar.NewReader(hr), counts: map[string]int{}}
	pendB, pendH := map[string]*member{}, map[string]*member{}
	var removed, added []*member
	for !bs.done || !hs.done {
		mb, err := bs.next(opt.MaxDiff)
		if err != nil {
			return nil, fmt.Errorf("base: %w", err)
		}
		mh, err := hs.next(opt.MaxDiff)
		if err != nil {
			return nil, fmt.Errorf("head: %w", err)
		}
		if mb != nil && mh != nil && mb.Name == mh.Name {
			if err := d.compare(mb, mh, opt); err != nil {
				return nil, err
			}
			continue
		}
		if mb != nil {
			if p, ok := pendH[mb.Name]; ok {
				delete(pendH, mb.Name)
				if err := d.compare(mb, p, opt); err != nil {
					return nil, err
				}
			} else {
				pendB[mb.Name] = keep(mb, &budget)
			}
		}
		if mh != nil {
			if p, ok := pendB[mh.Name]; ok {
				delete(pendB, mh.Name)
				if err := d.compare(p, mh, opt); err != nil {
					return nil, err
				}
			} else {
				pendH[mh.Name] = keep(mh, &budget)
			}
		}
	}
	d.BaseMembers, d.HeadMembers = bs.n, hs.n
	for _, m := range pendB {
		removed = append(removed, m)
	}
	for _, m := range pendH {
		added = append(added, m)
		if err := d.shell(nil, m, opt); err != nil {
			return nil, err
		}
	}
	sort.Slice(removed, func(i, j int) bool { return removed[i].Index < removed[j].Index })
	sort.Slice(added, func(i, j int) bool { return added[i].Index < added[j].Index })
	for _, m := range removed {
		d.note(KindRemoved, m.Name, "")
		if len(d.Removed) < maxListed {
			d.Removed = append(d.Removed, display(m.Name))
		}
	}
	for _, m := range added {
		d.note(KindAdded, m.Name, "")
		if len(d.Added) < maxListed {
			d.Added = append(d.Added, display(m.Name))
		}
	}
	if moved := d.moved(); moved > 0 {
		d.Kinds[KindOrder] = &Kind{Count: moved, Detail: fmt.Sprintf("%d of %d common members are in another order", moved, len(d.pairs))}
	}
	sort.SliceStable(d.Shell, func(i, j int) bool { return d.Shell[i].File < d.Shell[j].File })
	return d, nil
}

// display is a member name without the occurrence suffix.
func display(name string) string {
	n, _, _ := strings.Cut(name, "\x00")
	return n
}

func (d *Diff) note(kind, name, detail string) {
	k := d.Kinds[kind]
	if k == nil {
		k = &Kind{Example: display(name), Detail: detail}
		d.Kinds[kind] = k
	}
	k.Count++
}

// compare compares one member at base and head.
func (d *Diff) compare(b, h *member, opt Options) error {
	d.pairs = append(d.pairs, [2]int{b.Index, h.Index})
	if b.Type != h.Type || b.Link != h.Link {
		d.note(KindType, b.Name, fmt.Sprintf("type %q -> %q", b.Type, h.Type))
	}
	if b.Mode != h.Mode {
		d.note(KindMode, b.Name, fmt.Sprintf("%04o -> %04o", b.Mode, h.Mode))
	}
	if !b.ModTime.Equal(h.ModTime) {
		d.note(KindMtime, b.Name, fmt.Sprintf("%s -> %s", b.ModTime.UTC().Format(time.RFC3339), h.ModTime.UTC().Format(time.RFC3339)))
	}
	if b.UID != h.UID || b.GID != h.GID || b.Uname != h.Uname || b.Gname != h.Gname {
		d.note(KindOwner, b.Name, fmt.Sprintf("%d:%d (%s:%s) -> %d:%d (%s:%s)", b.UID, b.GID, b.Uname, b.Gname, h.UID, h.GID, h.Uname, h.Gname))
	}
	if b.HasData && h.HasData {
		if bytes.Equal(b.Data, h.Data) {
			return nil
		}
	} else if sumOf(b) == sumOf(h) {
		return nil
	}
	d.Changed++
	d.ChangedByName[path.Base(display(b.Name))]++
	if !b.HasData || !h.HasData {
		d.Large++
		return d.shell(b, h, opt) // counted as not checked when it is too large
	}
	if !isText(b.Data) || !isText(h.Data) {
		d.Binary++
		return nil
	}
	name := display(b.Name)
	diff, _ := textdiff.Unified("a/"+name, "b/"+name, string(b.Data), string(h.Data), diffContext)
	d.group(name, diff, opt.Masks)
	return d.shell(b, h, opt)
}

// isText reports whether data looks like text: no NUL byte.
func isText(data []byte) bool { return bytes.IndexByte(data, 0) < 0 }

// moved counts the common members that are out of order: the number of
// pairs outside the longest run that keeps its order.
func (d *Diff) moved() int {
	p := d.pairs
	sort.Slice(p, func(i, j int) bool { return p[i][0] < p[j][0] })
	var tails []int // longest increasing subsequence of head indices
	for _, x := range p {
		i := sort.SearchInts(tails, x[1])
		if i == len(tails) {
			tails = append(tails, x[1])
		} else {
			tails[i] = x[1]
		}
	}
	return len(p) - len(tails)
}

// sumOf is the sha256 of a member's content.
func sumOf(m *member) [32]byte {
	if m.HasData {
		return sha256.Sum256(m.Data)
	}
	return m.Sum
}
