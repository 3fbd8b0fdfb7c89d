package main

import (
	"fmt"
	"io"
	"os"
)

// maxDescription is the largest PR description run --description reads
// (GitHub caps a PR body at 65,536 characters).
const maxDescription = 1 << 20

// readDescription reads the PR description file of run --description; an
// empty name gives an empty description (the description check is then
// skipped).
func readDescription(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("--description: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDescription+1))
	if err != nil {
		return "", fmt.Errorf("--description: read %s: %w", name, err)
	}
	if len(b) > maxDescription {
		return "", fmt.Errorf("--description: %s is larger than %d bytes", name, maxDescription)
	}
	return string(b), nil
}
