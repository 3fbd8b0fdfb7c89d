// Command replicademo is the replica demonstration of scripts/replicas.sh:
// three App servers on one Postgres database behind a fake GitHub, a
// flood of signed deliveries round-robin (duplicates and superseding
// pushes among them), and the faults a deployment meets: a SIGKILL of a
// replica while deliveries are admitted, one while a verification runs,
// one while a verification is published (each replica started again on
// its data folder), and a PostgreSQL stop of 10 s in the middle. It
// counts from the fake GitHub's record, per head, and prints one line,
//
//	heads 30, verified once 30, second check-run sets 0, second gates 0, second comments 0, left open 0, false failures 0, lost 0
//
// and exits 0 only when every final head was verified once and published
// once, and the other counts are 0 (tally.go says what each counts).
//
// The replicas are this program started again with the argument
// "replica": each is app.ListenAndServe, the server of `template-verify
// serve`, with serve's defaults (replicaConfig) and a stub verification
// (it reads the head's file from the real clone after Pace, and records
// its start and end), since the demonstration is about the queue, not
// about verifying templates.
//
//	go run ./scripts/replicademo -database-url postgres://... -pg-dir DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/formula-code/template-verify/app"
	"github.com/formula-code/template-verify/checks"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/plan"
	"github.com/formula-code/template-verify/report"
	"github.com/formula-code/template-verify/verify"
)

const (
	appID    = 4242
	inst     = 77
	owner    = "octo"
	repoName = "hello"
	full     = owner + "/" + repoName
	secret   = "It's a Secret to Everybody"
	payload  = "app/testdata/github-webhooks/pull_request/synchronize.payload.json"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "replica" {
		if err := replica(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "replica:", err)
			os.Exit(1)
		}
		return
	}
	ok, err := demo()
	if err != nil {
		fmt.Fprintln(os.Stderr, "replicademo:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// replicaFlags are what the demonstration gives one replica; the rest
// of its configuration is serve's defaults.
type replicaFlags struct {
	db, api, keyFile, data, listen, metrics, record string
	index                                           int
	pace                                            time.Duration
}

// args is the command line of flags.
func (f replicaFlags) args() []string {
	return []string{"replica", "-database-url", f.db, "-api-url", f.api, "-key", f.keyFile, "-data-dir", f.data,
		"-listen", f.listen, "-metrics-addr", f.metrics, "-record", f.record, "-index", fmt.Sprint(f.index), "-pace", f.pace.String()}
}

// replica serves one App server until SIGTERM.
func replica(args []string) error {
	var f replicaFlags
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	fs.StringVar(&f.db, "database-url", "", "")
	fs.StringVar(&f.api, "api-url", "", "")
	fs.StringVar(&f.keyFile, "key", "", "")
	fs.StringVar(&f.data, "data-dir", "", "")
	fs.StringVar(&f.listen, "listen", "", "")
	fs.StringVar(&f.metrics, "metrics-addr", "", "")
	fs.StringVar(&f.record, "record", "", "")
	fs.IntVar(&f.index, "index", 0, "")
	fs.DurationVar(&f.pace, "pace", time.Second, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key, err := os.ReadFile(f.keyFile)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return app.ListenAndServe(ctx, replicaConfig(f, key), f.listen)
}

// serveShutdownGrace is serve's --shutdown-grace default (a flag
// default in cmd/template-verify, not an App constant).
const serveShutdownGrace = 30 * time.Second

// replicaConfig is the configuration `template-verify serve` makes from
// its defaults: the rescue time (River's, 1 hour), the heartbeat, the
// write spacing of an installation (1 s), 2 workers, nice 10, the replica
// id kept in the data folder (so a restart takes up its own jobs), the
// attempt limit and the poll interval all unset. What differs, and why:
// the addresses (three replicas on one machine), AllowUnsandboxed and
// Verify (the stub runs no pull-request code), Checks (the stub's one
// check).
func replicaConfig(f replicaFlags, key []byte) app.Config {
	return app.Config{
		AppID: appID, PrivateKey: key, WebhookSecret: []byte(secret), APIURL: f.api, AppSlug: "template-verify",
		DataDir: f.data, DatabaseURL: f.db, MetricsAddr: f.metrics,
		Workers: 2, Nice: app.DefaultNice, ShutdownGrace: serveShutdownGrace,
		AllowUnsandboxed: true, Checks: []string{"render"},
		Verify: stubVerify(f.pace, f.index, f.record),
		Log:    slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
}

// stubVerify records "start" in record, reads the head's template from
// the clone after pace, records "done" and reports one passing render
// check on a changed template (so the App comments). A replica killed
// during the pace leaves a start without a done.
func stubVerify(pace time.Duration, index int, record string) app.VerifyFunc {
	return func(ctx context.Context, in verify.Options) (*report.Report, error) {
		if err := appendLine(record, fmt.Sprintf("start %d %s", index, in.Head)); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pace):
		}
		data, ok, err := gitx.Repo{Dir: in.RepoDir}.ReadFile(ctx, in.Head, "templates/a/test.sh")
		if err != nil || !ok {
			return nil, fmt.Errorf("the clone lacks the head: %v", err)
		}
		if err := appendLine(record, fmt.Sprintf("done %d %s", index, in.Head)); err != nil {
			return nil, err
		}
		return &report.Report{
			Repo: in.RepoName, Base: in.Base, Head: in.Head, BaseRev: in.Base, HeadRev: in.Head,
			Command:   "template-verify run --repo . --base " + in.Base + " --head " + in.Head,
			Templates: []plan.Template{{Group: "tests", Path: "templates/a/test.sh", OldPath: "templates/a/test.sh", Status: plan.Modified}},
			Results:   []checks.Result{{Check: "render", Conclusion: checks.Success, Title: "Rendered 1 template", Summary: "test.sh: " + strings.TrimSpace(string(data))}},
			Overall:   checks.Success, ConfigSource: report.DefaultsSource,
		}, nil
	}
}

// appendLine appends one line to file in one write (O_APPEND: the
// replicas' lines do not mix).
func appendLine(file, line string) error {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	_, werr := f.WriteString(line + "\n")
	if err := f.Close(); werr == nil && err != nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("record: %w", werr)
	}
	return nil
}
