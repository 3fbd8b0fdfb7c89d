// Package publish puts one verification report on GitHub: one check run per
// check, a gate check run, and one pull-request comment that is edited in
// place. The GitHub Action uses it now and the GitHub App later, so it holds
// no Action-specific code.
//
// Its client comes from internal/githubapi, whose transport waits out rate
// limits, retries server errors and paces writes.
//
// Outputs fit GitHub's limits: titles 255 characters, summary and text
// 65,535 UTF-8 bytes each, 50 annotations a request, a comment body of
// 65,536 characters. A cut never breaks a code fence or a table, and a note
// says what was cut.
package publish
