// Package doccheck holds the tests that keep the front door true: every relative link and image
// in README.md and docs/ resolves, the README starts with its two commands and shows its
// pictures when rendered, and no user-facing text names an internal issue number.
package doccheck
