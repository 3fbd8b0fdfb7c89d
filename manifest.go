// Package templateverify holds the files of the repository root that the
// binary carries: the GitHub App manifest.
package templateverify

import _ "embed"

// AppManifest is app.yml, the manifest that `template-verify serve
// --register` posts to GitHub.
//
//go:embed app.yml
var AppManifest []byte
