// Command childmem measures what serve's side of one verification holds
// against what the verification child holds: it verifies one head of a
// repository through child.Runner with the given binary's verify-child,
// as serve does, and prints this process's peak resident set (VmHWM) and
// the child's (its rusage). scripts/child-memory.sh runs it on the demo
// example beside an in-process run.
//
//	go run ./scripts/childmem BINARY REPO BASE HEAD
package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/formula-code/template-verify/verify/child"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: childmem BINARY REPO BASE HEAD")
		os.Exit(2)
	}
	var logs bytes.Buffer
	r := &child.Runner{
		Command: []string{os.Args[1], "verify-child"},
		Log:     slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	rep, err := r.Verify(context.Background(), child.Request{RepoDir: os.Args[2], Base: os.Args[3], Head: os.Args[4], RepoName: "demo"}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "childmem:", err)
		os.Exit(1)
	}
	var childKiB string
	for _, line := range strings.Split(logs.String(), "\n") {
		if i := strings.Index(line, "peak_rss_kib="); i >= 0 {
			childKiB = strings.Fields(line[i+len("peak_rss_kib="):])[0]
		}
	}
	fmt.Printf("overall %s\nparent (serve's side) peak RSS KiB %s\nchild peak RSS KiB %s\n", rep.Overall, hwm(), childKiB)
}

// hwm is VmHWM of /proc/self/status in KiB.
func hwm() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.Fields(v)[0]
		}
	}
	return "?"
}
