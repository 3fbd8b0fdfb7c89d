package child

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/checks/ledger"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

// childEnv makes the test binary the child (TestMain): child.Serve with
// testVerify, which acts as the Request's Head says.
const childEnv = "TEMPLATE_VERIFY_TEST_VERIFY_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr, testVerify))
	}
	os.Exit(m.Run())
}

// sink keeps the allocations of the "oom" head alive.
var sink [][]byte

// testVerify is the child's verification in these tests. The head names
// what it does: pass, ask the ledger, or die in one way.
func testVerify(ctx context.Context, opts verify.Options) (*report.Report, error) {
	switch opts.Head {
	case "oom": // 64 MiB at a time, each touched, until the limit stops it
		for range 1 << 10 {
			b := make([]byte, 64<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			sink = append(sink, b)
		}
		return nil, fmt.Errorf("allocated %d MiB under the limit", len(sink)*64)
	case "stack":
		return nil, fmt.Errorf("recursed %d", recurse(0))
	case "signal":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "exit":
		os.Exit(3)
	case "garbage":
		fmt.Println("this is no message")
		select {}
	case "hang":
		select {}
	case "usage":
		return nil, &verify.UsageError{Err: fmt.Errorf("no revision %q", opts.Base)}
	case "ledger":
		for _, c := range opts.Checks() {
			if l, ok := c.(*ledger.Check); ok {
				runs, err := l.Source.CheckRunsAt(ctx, "abc")
				if err != nil {
					return nil, err
				}
				head, err := l.Source.(ledger.PullHeads).PullHead(ctx, 12)
				if err != nil {
					return nil, err
				}
				_, err = l.Source.CheckRunsAt(ctx, "broken")
				return &report.Report{Head: opts.Head, Notes: []string{fmt.Sprintf("%s %s %s %s", runs[0].Name, runs[0].Conclusion, head, err)}}, nil
			}
		}
		return nil, fmt.Errorf("no ledger check")
	}
	return &report.Report{Repo: opts.RepoName, Head: opts.Head, Results: []checks.Result{{Check: "render", Conclusion: checks.Success}}, Overall: checks.Success, Notes: []string{"sandbox " + opts.Sandbox}}, nil
}

// recurse calls itself until the stack overflows (a limit of 1<<40 is
// never reached).
//
//go:noinline
func recurse(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n > 1<<40 {
		return n
	}
	return recurse(n+1) + int(pad[0])
}

func runner() *Runner {
	return &Runner{
		Command:   []string{os.Args[0], "-test.run=^$"},
		Env:       append(os.Environ(), childEnv+"=1"),
		MaxMemory: 256 << 20,
		Checks:    []string{"render", "restore"},
	}
}

// TestChildThatDiesIsNotRun: a child that runs out of memory, overflows
// its stack, is killed by a signal, exits without a report or writes
// what is no message gives a report whose every check is not run with
// the reason, and no error: that head's verdict, not the server's end.
func TestChildThatDiesIsNotRun(t *testing.T) {
	for _, tc := range []struct {
		head, want string
		memory     int64
	}{
		{"oom", "ran out of memory (its limit is 256 MiB", 0},
		// Room for the stack of 128 MiB and, under -race, its shadow.
		{"stack", "fatal error: stack overflow", 2 << 30},
		{"signal", "was killed by signal killed", 0},
		{"exit", "exited with status 3 without a report", 0},
		{"garbage", "wrote a bad answer", 0},
	} {
		t.Run(tc.head, func(t *testing.T) {
			t.Parallel()
			r := runner()
			if tc.memory != 0 {
				r.MaxMemory = tc.memory
			}
			rep, err := r.Verify(context.Background(), Request{RepoDir: t.TempDir(), Base: "base", Head: tc.head, RepoName: "o/r"}, nil)
			if err != nil {
				t.Fatalf("err %v, want a report", err)
			}
			if rep.Overall != checks.NotRun || len(rep.Results) != 2 {
				t.Fatalf("overall %q, %d results; want not run, 2", rep.Overall, len(rep.Results))
			}
			for _, r := range rep.Results {
				if r.Conclusion != checks.NotRun || !strings.Contains(r.Summary, tc.want) {
					t.Errorf("%s: %s, %q; want not run with %q", r.Check, r.Conclusion, r.Summary, tc.want)
				}
			}
			if rep.Head != tc.head || rep.Repo != "o/r" {
				t.Errorf("head %q repo %q", rep.Head, rep.Repo)
			}
		})
	}
}

// TestChildTimeLimit: a child past its time limit is killed and its
// checks are not run, with the limit in the reason. The limit is short
// and the child never ends by itself, so no clock is raced.
func TestChildTimeLimit(t *testing.T) {
	r := runner()
	r.Timeout = 200 * time.Millisecond
	rep, err := r.Verify(context.Background(), Request{Head: "hang"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall != checks.NotRun || !strings.Contains(rep.Results[0].Summary, "longer than its limit of 200ms") {
		t.Errorf("%s: %q", rep.Overall, rep.Results[0].Summary)
	}
}

// TestChildEndsWithContext: the end of the caller's context is an error
// (the App keeps the job for the next start), not a verdict.
func TestChildEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := runner().Verify(ctx, Request{Head: "hang"}, nil); err == nil {
		t.Fatalf("report %+v, want an error", rep)
	}
}

// TestChildReportAndErrors: a report comes back whole, the sandbox mode
// reaches the child's options, and a usage error stays one.
func TestChildReportAndErrors(t *testing.T) {
	rep, err := runner().Verify(context.Background(), Request{Head: "h1", RepoName: "o/r", Sandbox: "none"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall != checks.Success || rep.Results[0].Check != "render" || !slices.Contains(rep.Notes, "sandbox none") {
		t.Errorf("report %+v", rep)
	}
	_, err = runner().Verify(context.Background(), Request{Head: "usage", Base: "nope"}, nil)
	var usage *verify.UsageError
	if err == nil || !strings.Contains(err.Error(), `no revision "nope"`) || !asUsage(err, &usage) {
		t.Errorf("err %v, want the usage error", err)
	}
}

func asUsage(err error, target **verify.UsageError) bool {
	u, ok := err.(*verify.UsageError)
	*target = u
	return ok
}

// fakeSource is the parent's ledger source.
type fakeSource struct{}

func (fakeSource) CheckRunsAt(_ context.Context, sha string) ([]ledger.Run, error) {
	if sha == "broken" {
		return nil, fmt.Errorf("GitHub said 502")
	}
	return []ledger.Run{{Name: "template-verify / gate", Conclusion: "success", HeadSHA: sha}}, nil
}

func (fakeSource) PullHead(_ context.Context, n int) (string, error) {
	return fmt.Sprintf("head-of-%d", n), nil
}

// TestLedgerCallsGoToTheParent: the child's ledger asks the parent's
// source through the pipes (the child holds no token), errors included.
func TestLedgerCallsGoToTheParent(t *testing.T) {
	rep, err := runner().Verify(context.Background(), Request{Head: "ledger", Ledger: &LedgerRefs{BaseRef: "main", HeadRef: "release"}}, fakeSource{})
	if err != nil {
		t.Fatal(err)
	}
	want := "template-verify / gate success head-of-12 GitHub said 502"
	if len(rep.Notes) != 1 || rep.Notes[0] != want {
		t.Errorf("notes %q, want %q", rep.Notes, want)
	}
}
