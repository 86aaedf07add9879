// Package version holds the kit's version, the one string every result, server and command
// reports, so the instrument and the systems under test agree on it without importing each other.
package version

// Version is tradebench's version.
const Version = "0.1.0"
