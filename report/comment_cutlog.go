package report

// Kinds of cut, in the order the notes name them.
const (
	cutDiff = iota
	cutShortDiff
	cutFinding
	cutShortFinding
	cutCheck
	cutShortCheck
	numCutKinds
)

// cutLead starts the note of each kind of cut.
var cutLead = [numCutKinds][2]string{ // one name, many names
	cutDiff:         {"Cut: the rendered diff of ", "Cut: the rendered diffs of "},
	cutShortDiff:    {"Shortened: the rendered diff of ", "Shortened: the rendered diffs of "},
	cutFinding:      {"Cut: the details of the finding at ", "Cut: the details of the findings at "},
	cutShortFinding: {"Shortened: the details of the finding at ", "Shortened: the details of the findings at "},
	cutCheck:        {"Cut: the details of the check ", "Cut: the details of the checks "},
	cutShortCheck:   {"Shortened: the details of the check ", "Shortened: the details of the checks "},
}

// maxNamed is how many names one note gives before "and N more".
const maxNamed = 3

// cutLog records what the size limit cut, for the Notes section.
type cutLog struct {
	names [numCutKinds][]string
	seen  map[string]bool
	lists []string       // one note per list, in the order of the first cut
	last  map[string]int // list key -> index in lists
	limit int            // the size limit, for the first note
	any   bool
}

func (c *cutLog) add(kind int, name string) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.any = true
	key := itoa(kind) + "\x00" + name
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.names[kind] = append(c.names[kind], name)
}

// list records the note of a list cut; a later cut of the same list
// replaces the note, since it says how many are cut in all.
func (c *cutLog) list(key, note string) {
	if c.last == nil {
		c.last = map[string]int{}
	}
	c.any = true
	if i, ok := c.last[key]; ok {
		c.lists[i] = note
		return
	}
	c.last[key] = len(c.lists)
	c.lists = append(c.lists, note)
}

// notes writes the cuts as notes: one lead note, then one per kind.
func (c *cutLog) notes() []string {
	if !c.any {
		return nil
	}
	out := []string{"The comment leaves out parts to stay within the size limit of " + thousands(c.limit) + " bytes. The JSON output has all of them."}
	for kind, names := range c.names {
		if len(names) == 0 {
			continue
		}
		lead := cutLead[kind][0]
		if len(names) > 1 {
			lead = cutLead[kind][1]
		}
		shown, more := names, ""
		if len(names) > maxNamed {
			shown, more = names[:maxNamed], ", and "+itoa(len(names)-maxNamed)+" more"
		}
		out = append(out, lead+list(shown)+more+".")
	}
	return append(out, c.lists...)
}
