package gitx

// Starts is the number of git processes b started.
func (b *Batch) Starts() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.starts
}

// Running reports whether b has a git process.
func (b *Batch) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.p != nil
}
