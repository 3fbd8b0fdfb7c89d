// Command benchgen builds the second proof repository (examples/benchgen)
// into a new or empty folder, so that "template-verify run" can verify one
// of its heads by hand or from scripts/bench.sh:
//
//	go run ./scripts/benchgen DIR
//	template-verify run --repo DIR --base main --head restore-protects-data
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/formula-code/template-verify/examples/benchgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchgen DIR (a new or empty folder)")
		os.Exit(2)
	}
	b, err := benchgen.Build(context.Background(), os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("benchgen built in %s: base %s (branch %s), %d heads\n", b.Dir, b.Base, benchgen.BaseBranch, len(b.Heads))
}
