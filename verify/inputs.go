package verify

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/formula-code/template-verify/config"
	"github.com/formula-code/template-verify/internal/gitx"
	"github.com/formula-code/template-verify/internal/rendercode"
	"github.com/formula-code/template-verify/internal/words"
	"github.com/formula-code/template-verify/plan"
)

// inputs is what Run reads before it decides anything: the repository, the
// path of the configuration file, the head's configuration and the plan
// of what changed.
type inputs struct {
	repo    gitx.Repo
	cfgPath string
	head    *config.Config
	plan    *plan.Plan
}

// readInputs checks the repository and the revisions and reads the head's
// configuration and the plan; every error is a *UsageError.
func readInputs(ctx context.Context, opts Options) (*inputs, error) {
	repo := gitx.Repo{Dir: opts.RepoDir}
	if st, err := os.Stat(opts.RepoDir); err != nil || !st.IsDir() {
		return nil, &UsageError{fmt.Errorf("%s is not a folder", opts.RepoDir)}
	}
	if !repo.IsRepo(ctx) {
		return nil, &UsageError{fmt.Errorf("%s is not a git repository", opts.RepoDir)}
	}
	head, err := repo.Resolve(ctx, opts.Head)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("head: %w", err)}
	}
	cfgPath := opts.ConfigPath
	if cfgPath == "" {
		cfgPath = config.Path
	}
	if cfgPath != config.Path {
		// A file the user names must be there: a typo must not verify
		// with the defaults.
		if _, ok, err := repo.ReadFile(ctx, head, cfgPath); err != nil {
			return nil, &UsageError{fmt.Errorf("read %s at %s: %w", cfgPath, short(head), err)}
		} else if !ok {
			return nil, &UsageError{fmt.Errorf("the configuration file %s is not in the repository at %s", cfgPath, opts.Head)}
		}
	}
	prefetchBase(ctx, repo, opts.Base, head, cfgPath)
	cfg, err := LoadConfigAt(ctx, repo, head, cfgPath)
	if err != nil {
		return nil, &UsageError{err}
	}
	p, err := plan.Build(ctx, repo, cfg, opts.Base, opts.Head)
	if err != nil {
		return nil, &UsageError{err}
	}
	return &inputs{repo: repo, cfgPath: cfgPath, head: cfg, plan: p}, nil
}

// LoadConfig reads .github/template-verify.yml at rev, or returns the
// defaults when the file is not there.
func LoadConfig(ctx context.Context, repo gitx.Repo, rev string) (*config.Config, error) {
	return LoadConfigAt(ctx, repo, rev, config.Path)
}

// LoadConfigAt reads the config file at path (a repository path) at rev (a
// commit sha). When the file is not there, the configuration is derived
// from the render code at rev (rendercode.Config), with the built-in
// defaults as the fallback.
func LoadConfigAt(ctx context.Context, repo gitx.Repo, rev, path string) (*config.Config, error) {
	data, ok, err := repo.ReadFile(ctx, rev, path)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", path, rev, err)
	}
	if !ok {
		return rendercode.Config(ctx, repo, rev), nil
	}
	cfg, err := config.Decode(path, data)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("configuration at %s: %w", short(rev), err)
		}
		return nil, err
	}
	return cfg, nil
}

// short is the shared short commit sha.
var short = words.Short

// prefetchBase starts reading the merge base's configuration from its
// render code (rendercode.Config, which runs the base's render tests) while
// the head's is read, when the base has no config file: the two
// observations then run side by side, and effectiveConfig's later call
// waits for this one (rendercode keeps one reading per commit).
func prefetchBase(ctx context.Context, repo gitx.Repo, base, head, cfgPath string) {
	mb, err := repo.MergeBase(ctx, base, head)
	if err != nil || mb == head {
		return
	}
	if _, ok, err := repo.ReadFile(ctx, mb, cfgPath); err != nil || ok {
		return
	}
	go rendercode.Config(ctx, repo, mb)
}
