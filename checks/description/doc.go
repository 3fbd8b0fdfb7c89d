// Package description is the description check: it reads the pull
// request's body (run --description FILE, or the body of the Action's or
// the App's pull request event) against datasmith's house format with
// internal/housestyle, and reports one finding per broken rule at its
// line. Findings are warnings unless description.level is fail at the
// base or the head; a run without a description is skipped with a reason.
package description
